import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JOBS, PODS, PVCS } from '../../client/api/core-resources.js';
import { SECRETS } from '../../client/api/resources.js';
import type { Job, Pod } from '../../operator/kube/workloads.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { SimulatedJobRunner } from '../../dev/platform/jobs/simulated-job-runner.js';
import { SimulatedStorage } from '../../dev/platform/storage/simulated-storage.js';

const { ns } = useWorld({ namespace: 'job-runner' });
const IMAGE = 'example.test/script:1';

/**
 * The "image": a Node script that reports what the container sees (env, mounted files and their
 * modes) into the PVC, writes a termination message and exits with $EXIT_CODE; with $HANG it
 * records its pid and waits to be killed.
 */
const SCRIPT = `
const fs = require('node:fs');
const out = process.env.OUT_DIR;
if (process.env.HANG) { fs.writeFileSync(out + '/pid', String(process.pid)); setInterval(() => {}, 1000); }
else report();
function report() {
const key = process.env.KEY_FILE;
fs.writeFileSync(out + '/seen.json', JSON.stringify({
  env: { POD_NAME: process.env.POD_NAME, TOKEN: process.env.TOKEN, PLAIN: process.env.PLAIN, HAS_KUBECONFIG: !!process.env.KUBECONFIG },
  key: fs.readFileSync(key, 'utf8'),
  keyMode: (fs.statSync(key).mode & 0o777).toString(8),
  args: process.argv.slice(1),
}));
if (process.env.MESSAGE) fs.writeFileSync(process.env.TERMINATION_MESSAGE_PATH, process.env.MESSAGE);
console.log('last words of ' + process.env.POD_NAME);
process.exit(Number(process.env.EXIT_CODE ?? 0));
}
`;

function job(name: string, env: Record<string, string>, backoffLimit = 0): Job {
  return {
    apiVersion: JOBS.apiVersion,
    kind: JOBS.kind,
    metadata: { name, namespace: ns.name },
    spec: {
      backoffLimit,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'main',
              image: IMAGE,
              args: ['/data/arg-path'],
              env: [
                ...Object.entries(env).map(([key, value]) => ({ name: key, value })),
                { name: 'OUT_DIR', value: '/data' },
                { name: 'KEY_FILE', value: '/keys/id_key' },
                { name: 'TERMINATION_MESSAGE_PATH', value: '/dev/termination-log' },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
              ],
              volumeMounts: [
                { name: 'data', mountPath: '/data' },
                { name: 'keys', mountPath: '/keys' },
              ],
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes: [
            { name: 'data', persistentVolumeClaim: { claimName: `${name}-data` } },
            {
              name: 'keys',
              secret: { secretName: 'creds', items: [{ key: 'key', path: 'id_key' }] },
            },
          ],
        },
      },
    },
  };
}

const finishedAs = (type: string) => (j: Job | undefined) =>
  j?.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

describe('simulated Job runner', () => {
  let storage: SimulatedStorage;
  let runner: SimulatedJobRunner;

  beforeAll(async () => {
    storage = await SimulatedStorage.start({ kubeConfig: ns.kubeConfig, namespace: ns.name });
    runner = await SimulatedJobRunner.start({
      kubeConfig: ns.kubeConfig,
      namespace: ns.name,
      storage,
      images: { [IMAGE]: { command: process.execPath, args: ['-e', SCRIPT] } },
      accept: (j) => !j.metadata!.name!.startsWith('injected'),
    });
    await ns.api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: ns.name },
      data: {
        token: Buffer.from('s3cret').toString('base64'),
        key: Buffer.from('PRIVATE KEY').toString('base64'),
      },
    } as never);
  });
  afterAll(async () => {
    await runner?.stop();
    await storage?.stop();
  });

  const claim = (name: string): Promise<unknown> =>
    ns.api.create(PVCS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: ns.name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });

  it('runs the container with its env, volumes and credentials, and completes the Job', async () => {
    await ns.api.create(JOBS, job('ok', { PLAIN: 'plain value' }));
    await claim('ok-data'); // after the Job: the pod waits for its volume to be bound
    const done = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: 'ok',
      until: finishedAs('Complete'),
    });
    expect(done!.status).toMatchObject({ succeeded: 1 });
    expect(done!.status!.active ?? 0).toBe(0);
    const [pod] = (
      await ns.api.list<Pod>(PODS, { namespace: ns.name, labelSelector: 'job-name=ok' })
    ).items;
    expect(pod!.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'Job',
      name: 'ok',
      controller: true,
    });
    expect(pod!.status!.phase).toBe('Succeeded');
    expect(pod!.status!.containerStatuses![0]!.state!.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    const volume = storage.volumePath(ns.name, 'ok-data')!;
    const seen = JSON.parse(await readFile(path.join(volume, 'seen.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(seen).toEqual({
      env: {
        POD_NAME: pod!.metadata!.name,
        TOKEN: 's3cret',
        PLAIN: 'plain value',
        HAS_KUBECONFIG: true,
      },
      key: 'PRIVATE KEY',
      keyMode: '600',
      args: [path.join(volume, 'arg-path')],
    });
  });

  it('replaces failed pods up to backoffLimit, then fails the Job; the termination message or log tail is kept', async () => {
    await claim('bad-data');
    await ns.api.create(JOBS, job('bad', { EXIT_CODE: '3', MESSAGE: '{"step":"Verify"}' }, 1));
    await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: 'bad',
      until: finishedAs('Failed'),
    });
    const pods = await ns.api.list<Pod>(PODS, {
      namespace: ns.name,
      labelSelector: 'job-name=bad',
    });
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items)
      expect(pod.status!.containerStatuses![0]!.state!.terminated).toMatchObject({
        exitCode: 3,
        reason: 'Error',
        message: '{"step":"Verify"}',
      });
    const failed = await ns.api.get<Job>(JOBS, 'bad', ns.name);
    expect(failed.status).toMatchObject({ failed: 2 });
    expect(failed.status!.active ?? 0).toBe(0);

    await claim('quiet-data');
    await ns.api.create(JOBS, job('quiet', { EXIT_CODE: '1' }));
    await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: 'quiet',
      until: finishedAs('Failed'),
    });
    const [quiet] = (
      await ns.api.list<Pod>(PODS, { namespace: ns.name, labelSelector: 'job-name=quiet' })
    ).items;
    expect(quiet!.status!.containerStatuses![0]!.state!.terminated!.message).toBe(
      `last words of ${quiet!.metadata!.name}\n`,
    );
  });

  it('fails a pod as told by the injection hook, without running it', async () => {
    const injected = await SimulatedJobRunner.start({
      kubeConfig: ns.kubeConfig,
      namespace: ns.name,
      storage,
      images: {},
      accept: (j) => j.metadata!.name === 'injected',
      inject: () => ({ exitCode: 2, reason: 'Error', message: 'injected failure' }),
    });
    try {
      await ns.api.create(JOBS, job('injected', {}));
      await claim('injected-data');
      await waitFor<Job>(ns.kubeConfig, {
        type: JOBS,
        namespace: ns.name,
        name: 'injected',
        until: finishedAs('Failed'),
      });
    } finally {
      await injected.stop();
    }
  });

  it('plays an injected result only once the claims of the pod are bound, as a kubelet mounts them first', async () => {
    // A played step reads and writes its volume (as the release tools' stand-ins do).
    const played = await SimulatedJobRunner.start({
      kubeConfig: ns.kubeConfig,
      namespace: ns.name,
      storage,
      images: {},
      accept: (j) => j.metadata!.name === 'injected-late',
      inject: async () => {
        const folder = storage.volumePath(ns.name, 'injected-late-data');
        if (!folder) throw new Error('played before its volume was bound');
        await writeFile(path.join(folder, 'played'), 'yes');
        return { exitCode: 0, reason: 'Completed', message: 'played' };
      },
    });
    try {
      await ns.api.create(JOBS, job('injected-late', {}));
      // The pod exists before its claim does.
      await waitForList(ns.kubeConfig, {
        type: PODS,
        namespace: ns.name,
        labelSelector: 'job-name=injected-late',
        until: (pods) => pods.length > 0,
        description: 'the pod of the played Job',
      });
      await claim('injected-late-data');
      await waitFor<Job>(ns.kubeConfig, {
        type: JOBS,
        namespace: ns.name,
        name: 'injected-late',
        until: finishedAs('Complete'),
        description: 'the played Job to complete',
      });
      const folder = storage.volumePath(ns.name, 'injected-late-data')!;
      expect(await readFile(path.join(folder, 'played'), 'utf8')).toBe('yes');
    } finally {
      await played.stop();
    }
  });

  it('fails the Job with DeadlineExceeded once activeDeadlineSeconds have passed since its startTime, killing its pod and making no other', async () => {
    await claim('late-data');
    const late = { ...job('late', { HANG: '1' }, 3) };
    late.spec.activeDeadlineSeconds = 2;
    const created = await ns.api.create<Job>(JOBS, late);
    await waitForList<Pod>(ns.kubeConfig, {
      type: PODS,
      namespace: ns.name,
      labelSelector: 'job-name=late',
      until: (pods) => pods[0]?.status?.phase === 'Running',
      description: 'the late pod to run',
    });
    const pid = await waitForPid(path.join(storage.volumePath(ns.name, 'late-data')!, 'pid'));
    const failed = await waitFor<Job>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      name: 'late',
      until: finishedAs('Failed'),
      description: 'the late Job Failed',
    });
    await runner.settled(created);
    expect(() => process.kill(pid, 0)).toThrow();
    const deadline = {
      status: 'True',
      reason: 'DeadlineExceeded',
      message: 'Job was active longer than specified deadline',
    };
    expect(failed!.status!.conditions).toEqual([
      expect.objectContaining({ type: 'FailureTarget', ...deadline }),
      expect.objectContaining({ type: 'Failed', ...deadline }),
    ]);
    expect(failed!.status).toMatchObject({ failed: 1, terminating: 0 });
    expect(failed!.status!.active ?? 0).toBe(0);
    // It counts from startTime: it failed no sooner than the deadline after it.
    const failedAt = Date.parse(failed!.status!.conditions![1]!.lastTransitionTime!);
    expect(failedAt - Date.parse(failed!.status!.startTime!)).toBeGreaterThanOrEqual(2000);
    // The one pod was deleted (a backoffLimit of 3 would have allowed more), and no other was made.
    const pods = await ns.api.list<Pod>(PODS, {
      namespace: ns.name,
      labelSelector: 'job-name=late',
    });
    expect(pods.items).toEqual([]);
  });

  it('kills the process when its Job is deleted', async () => {
    await claim('hang-data');
    const created = await ns.api.create<Job>(JOBS, job('hang', { HANG: '1' }));
    await waitForList<Pod>(ns.kubeConfig, {
      type: PODS,
      namespace: ns.name,
      labelSelector: 'job-name=hang',
      until: (pods) => pods[0]?.status?.phase === 'Running',
      description: 'the hanging pod to run',
    });
    const volume = storage.volumePath(ns.name, 'hang-data')!;
    const pid = await waitForPid(path.join(volume, 'pid'));
    await ns.api.delete(JOBS, 'hang', ns.name, { propagationPolicy: 'Background' });
    await runner.settled(created);
    expect(() => process.kill(pid, 0)).toThrow();
    await waitForList<Pod>(ns.kubeConfig, {
      type: PODS,
      namespace: ns.name,
      labelSelector: 'job-name=hang',
      until: (pods) => pods.length === 0,
      description: 'the garbage collector to delete the pod',
    });
  });
});

/**
 * The pod reports Running just before the process starts; its pid file follows shortly. Resolves
 * with the pid once the file holds one (it exists, empty, for a moment before it is written).
 */
async function waitForPid(file: string): Promise<number> {
  const { watch } = await import('node:fs/promises');
  const abort = new AbortController();
  const pid = (): Promise<number> =>
    readFile(file, 'utf8').then(
      (text) => (/^\d+$/.test(text) ? Number(text) : 0),
      () => 0,
    );
  try {
    const changes = watch(path.dirname(file), { signal: abort.signal })[Symbol.asyncIterator]();
    for (;;) {
      // Asked for before the check, so that the watch has started and no write goes unseen.
      const next = changes.next();
      next.catch(() => undefined); // rejects with AbortError once we stop watching
      const found = await pid();
      if (found > 0) return found;
      await next;
    }
  } finally {
    abort.abort();
  }
}
