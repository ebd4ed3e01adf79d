import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { Diagnostics } from '../../client/diagnostics/diagnostics-facts.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  hcpPool,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { SimulatedManagementNode } from '../../dev/platform/management/simulated-management-node.js';
import { kubectl } from '../support/kubectl.js';
import { installLeaseTtlPolicy } from '../support/lease-ttl-policy.js';
import { testEnv } from '../support/test-env.js';
import type { Finished } from './cli-run.js';
import { ciKubeconfig, installedCli, leaseGone, run } from './cli-run.js';

/**
 * Every verb of `guestcluster lease`, run as a process with the documented CI identity against
 * the real pool and lease controllers; the test settles the instances (the guest kubeconfig is
 * the test control plane's own, so it works).
 */
const world = useWorld({ namespace: 'cli', enabled: true });
const { ns } = world;

let dir: string;
let env: NodeJS.ProcessEnv;
let guestKubeconfig: string;
let manager: Manager;

const GITLAB_JOB = {
  GITLAB_CI: 'true',
  CI_PROJECT_PATH: 'group/app',
  CI_PIPELINE_ID: '77',
  CI_JOB_ID: '4242',
  CI_JOB_NAME: 'e2e',
  CI_JOB_URL: 'https://gitlab.example/group/app/-/jobs/4242',
};

const guestcluster = (...args: string[]): Promise<Finished> => run('guestcluster', args, env).done;

async function readyInstance(pool: string, name: string): Promise<void> {
  await createPoolInstance(ns.api, poolInstance(ns.name, pool, name));
  await settleInstance(ns.api, ns.name, name, 'Ready', guestKubeconfig);
}

const gone = (name: string): Promise<void> => leaseGone(ns.kubeConfig, ns.name, name);

const leaseNames = async (): Promise<string[]> =>
  (await ns.api.list<ClusterLease>(LEASES, { namespace: ns.name })).items.map(
    (l) => l.metadata!.name!,
  );

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gc-lease-cli-'));
  guestKubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
  const installed = await installedCli();
  env = {
    PATH: installed.path,
    HOME: dir,
    KUBECONFIG: await ciKubeconfig(ns.kubeConfig, ns.name, dir),
    ...GITLAB_JOB,
  };
  manager = await world.startOperator();
  await ns.api.create(POOLS, hcpPool(ns.name, 'ready', { maxSize: 2 }));
  await readyInstance('ready', 'ready-0');
  await readyInstance('ready', 'ready-1');
  // One instance that never becomes Ready (no instance controller runs): leases wait.
  await ns.api.create(POOLS, hcpPool(ns.name, 'busy', { maxSize: 1 }));
});

afterAll(async () => {
  if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
  await manager?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('guestcluster lease acquire', () => {
  it('refuses bad input with exit 2 and creates nothing', async () => {
    for (const args of [
      ['--ttl', 'forever'],
      ['--ttl', '9000h'],
      ['--timeout', '0'],
      ['--name', 'Not_A_Name'],
      ['--output', 'yaml'],
      ['--kubeconfig', path.join(dir, 'absent')],
      ['--ocp-version', '4'],
      ['--topology', 'vm'],
      ['--on-mismatch', 'maybe'],
    ]) {
      const result = await guestcluster('lease', 'acquire', '--pool', 'ready', ...args);
      expect([args, result.code]).toEqual([args, 2]);
      // Our own message, naming the flag and its value (not commander's "unknown option").
      expect(result.stderr).toContain(
        args[0] === '--kubeconfig' ? 'cannot be read' : `${args[0]} is "${args[1]}"`,
      );
    }
    const missing = await guestcluster('lease', 'acquire');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--pool <name>' not specified");
    // The API's own validation: a pool name must be a DNS-1035 label.
    const refused = await guestcluster('lease', 'acquire', '--pool', 'Not_A_Pool');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('spec.poolRef.name must be a valid ClusterPool name');
    expect(await leaseNames()).toEqual([]);
  });

  it('binds (exit 0), writes the kubeconfig with mode 0600 and prints its path', async () => {
    const out = path.join(dir, 'guest', 'bound.kubeconfig');
    const result = await guestcluster(
      ...['lease', 'acquire', '--pool', 'ready', '--name', 'cli-bound', '--ttl', '2h'],
      ...['--kubeconfig-out', out],
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${out}\n`);
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect(await readFile(out, 'utf8')).toBe(guestKubeconfig);
    expect(result.stderr).toContain(`Created ClusterLease ${ns.name}/cli-bound`);
    expect(result.stderr).toContain('ClusterLease cli-bound: Bound');
    expect(result.stderr).toMatch(
      /Bound to ClusterInstance ready-[01] \(hcp, OpenShift 4\.16\.10\)/,
    );
    expect(result.stderr).not.toContain('client-key-data');
    const lease = await ns.api.get<ClusterLease>(LEASES, 'cli-bound', ns.name);
    expect(lease.spec).toMatchObject({
      poolRef: { name: 'ready' },
      ttl: '2h',
      requestedBy: `GitLab group/app pipeline 77 job 4242 (e2e) ${GITLAB_JOB.CI_JOB_URL}`,
      subjects: [{ kind: 'ServiceAccount', namespace: ns.name, name: 'guestcluster-ci' }],
    });
    expect(lease.metadata!.labels).toEqual({ 'app.kubernetes.io/created-by': 'guestcluster-cli' });
  });

  it('answers with the lease as JSON with --output json', async () => {
    const result = await guestcluster(
      ...['lease', 'acquire', '--pool', 'ready', '--name', 'cli-json', '--output', 'json'],
    );
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as Record<string, unknown>;
    const file = path.join(dir, '.kube', 'guestcluster', `${ns.name}.cli-json.kubeconfig`);
    expect(answer).toEqual({
      name: 'cli-json',
      namespace: ns.name,
      phase: 'Bound',
      pool: 'ready',
      ttl: '6h',
      requestedBy: expect.stringContaining('GitLab group/app'),
      instance: expect.stringMatching(/^ready-[01]$/),
      queuePosition: null,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      topology: 'hcp',
      ocpVersion: '4.16.10',
      apiEndpoint: expect.stringMatching(/^https:\/\/api\.ready-[01]\.example:6443$/),
      reason: 'InstanceBound',
      message: expect.any(String),
      kubeconfig: file,
      waitSeconds: expect.any(Number),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  });

  it('deletes the lease and exits 3 when it is not bound within --timeout', async () => {
    const result = await guestcluster(
      'lease',
      'acquire',
      '--pool',
      'busy',
      '--name',
      'cli-slow',
      '--timeout',
      '1s',
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Pending, 1st in the queue of pool "busy"');
    expect(result.stderr).toContain(
      `ClusterLease ${ns.name}/cli-slow was not bound within 1s (--timeout)`,
    );
    expect(result.stderr).toContain(`Released ClusterLease ${ns.name}/cli-slow (released)`);
    await gone('cli-slow');
  });

  it('deletes the lease and exits 4 when the lease fails', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'spare', { maxSize: 1 }));
    await readyInstance('spare', 'spare-0');
    // The instance published spare-0-kubeconfig: a lease named spare-0 would copy into it.
    const result = await guestcluster('lease', 'acquire', '--pool', 'spare', '--name', 'spare-0');
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `ClusterLease ${ns.name}/spare-0 failed: KubeconfigSecretConflict: Secret ${ns.name}/spare-0-kubeconfig`,
    );
    await gone('spare-0');
  });

  it("deletes the lease it created when interrupted (Ctrl-C, or a cancelled job's SIGTERM)", async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const name = `cli-${signal.toLowerCase()}`;
      const acquiring = run(
        'guestcluster',
        ['lease', 'acquire', '--pool', 'busy', '--name', name],
        env,
      );
      await acquiring.told('Pending, 1st in the queue of pool "busy"');
      acquiring.signal(signal);
      const result = await acquiring.done;
      expect([signal, result.code]).toEqual([signal, 130]);
      expect(result.stderr).toContain(`Released ClusterLease ${ns.name}/${name}`);
      await gone(name);
    }
  });

  it('refuses a name that is taken, with exit 2, and leaves that lease alone', async () => {
    const result = await guestcluster('lease', 'acquire', '--pool', 'ready', '--name', 'cli-bound');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('already exists; give another --name');
    expect((await ns.api.get<ClusterLease>(LEASES, 'cli-bound', ns.name)).status?.phase).toBe(
      'Bound',
    );
  });
});

describe('guestcluster lease list, extend, kubeconfig and release', () => {
  it('lists the leases as a table, as JSON and by name', async () => {
    const table = await guestcluster('lease', 'list');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header!.split(/ {3,}/)).toEqual([
      'NAME',
      'PHASE',
      'POOL',
      'INSTANCE',
      'QUEUE',
      'EXPIRES',
      'REQUESTED BY',
    ]);
    expect(rows.map((row) => row.split(/\s+/).slice(0, 3))).toEqual([
      ['cli-bound', 'Bound', 'ready'],
      ['cli-json', 'Bound', 'ready'],
    ]);
    const json = JSON.parse((await guestcluster('lease', 'list', '-o', 'json')).stdout) as {
      namespace: string;
      items: { name: string; phase: string }[];
    };
    expect(json.namespace).toBe(ns.name);
    expect(json.items.map((i) => [i.name, i.phase])).toEqual([
      ['cli-bound', 'Bound'],
      ['cli-json', 'Bound'],
    ]);
    expect((await guestcluster('lease', 'list', '--output', 'name')).stdout).toBe(
      'cli-bound\ncli-json\n',
    );
  });

  it('extends a lease: the new ttl counts from when it was bound', async () => {
    const result = await guestcluster('lease', 'extend', 'cli-bound', '--ttl', '5h', '-o', 'json');
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { ttl: string; expiresAt: string };
    const lease = await ns.api.get<ClusterLease>(LEASES, 'cli-bound', ns.name);
    expect(lease.spec.ttl).toBe('5h');
    expect(answer.ttl).toBe('5h');
    expect(Date.parse(answer.expiresAt) - Date.parse(lease.status!.boundTime!)).toBe(5 * 3_600_000);
    expect((await guestcluster('lease', 'extend', 'cli-bound', '--ttl', 'soon')).code).toBe(2);
    // A duration the API refuses (spec.ttl is at most 64 characters): bad input, nothing changed.
    const tooLong = await guestcluster('lease', 'extend', 'cli-bound', '--ttl', '1s'.repeat(33));
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain(`ClusterLease ${ns.name}/cli-bound refused the ttl`);
    expect((await ns.api.get<ClusterLease>(LEASES, 'cli-bound', ns.name)).spec.ttl).toBe('5h');
    const missing = await guestcluster('lease', 'extend', 'no-such-lease', '--ttl', '1h');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`ClusterLease ${ns.name}/no-such-lease not found`);
  });

  it('writes the kubeconfig with mode 0600, or prints it', async () => {
    const file = path.join(dir, 'again.kubeconfig');
    await writeFile(file, 'old', { mode: 0o644 });
    const written = await guestcluster(
      'lease',
      'kubeconfig',
      'cli-bound',
      '--kubeconfig-out',
      file,
    );
    expect(written.code).toBe(0);
    expect(written.stdout).toBe(`${file}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toBe(guestKubeconfig);
    expect((await guestcluster('lease', 'kubeconfig', 'cli-bound')).stdout).toBe(guestKubeconfig);
    const json = await guestcluster(
      'lease',
      'kubeconfig',
      'cli-bound',
      '-o',
      'json',
      '--kubeconfig-out',
      file,
    );
    expect(JSON.parse(json.stdout)).toEqual({
      name: 'cli-bound',
      namespace: ns.name,
      kubeconfig: file,
    });
  });

  it('releases a lease and waits until it is gone; a second release is harmless', async () => {
    const released = await guestcluster('lease', 'release', 'cli-json', '-o', 'json');
    expect(released.code).toBe(0);
    expect(JSON.parse(released.stdout)).toEqual({
      name: 'cli-json',
      namespace: ns.name,
      result: 'released',
    });
    expect(await leaseNames()).not.toContain('cli-json');
    const again = await guestcluster('lease', 'release', 'cli-json');
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`ClusterLease ${ns.name}/cli-json: already-gone\n`);
  });
});

describe('guestcluster lease acquire --ocp-version, --topology and --on-mismatch', () => {
  it('binds a cluster of the version asked, waits while the pool offers none, and releases a mismatch (exit 4)', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'versioned', { maxSize: 3 }));
    for (const n of [0, 1, 2]) await readyInstance('versioned', `versioned-${n}`);
    const bound = await guestcluster(
      ...['lease', 'acquire', '--pool', 'versioned', '--name', 'cli-v416'],
      ...['--ocp-version', '4.16', '--topology', 'hcp', '-o', 'json'],
    );
    expect(bound.code).toBe(0);
    expect(JSON.parse(bound.stdout)).toMatchObject({ phase: 'Bound', ocpVersion: '4.16.10' });
    expect(bound.stderr).toContain(`Created ClusterLease ${ns.name}/cli-v416 on`);
    expect(bound.stderr).toContain('(pool versioned, OpenShift 4.16, ttl 6h)');
    const lease = await ns.api.get<ClusterLease>(LEASES, 'cli-v416', ns.name);
    expect(lease.spec.ocpVersion).toBe('4.16');
    expect(lease.status?.instanceRef?.name).toMatch(/^versioned-[01]$/);

    // A version the pool does not offer: the lease waits, as the Action's does (which fails it
    // once it has said so for 15 s: client/lease/wait-for-lease.ts, test/action/action.test.ts).
    const unavailable = await guestcluster(
      ...['lease', 'acquire', '--pool', 'versioned', '--name', 'cli-v417'],
      ...['--ocp-version', '4.17', '--timeout', '2s'],
    );
    expect(unavailable.code).toBe(3);
    expect(unavailable.stderr).toContain('ClusterLease cli-v417: Pending (VersionUnavailable)');
    expect(unavailable.stderr).toContain(
      `ClusterLease ${ns.name}/cli-v417 was not bound within 2s (--timeout); it was Pending (VersionUnavailable)`,
    );
    await gone('cli-v417');

    const mismatch = await guestcluster(
      ...['lease', 'acquire', '--pool', 'versioned', '--name', 'cli-crc'],
      ...['--ocp-version', '4.16.10', '--topology', 'crc'],
    );
    expect(mismatch.code).toBe(4);
    expect(mismatch.stderr).toContain(
      'The leased cluster does not match: topology is "hcp", expected "crc" (--on-mismatch is fail; released the lease)',
    );
    expect(mismatch.stdout).toBe('');
    await gone('cli-crc');

    const warned = await guestcluster(
      ...['lease', 'acquire', '--pool', 'versioned', '--name', 'cli-warn'],
      ...['--topology', 'crc', '--on-mismatch', 'warn', '--kubeconfig-out', path.join(dir, 'w')],
    );
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain(
      'The leased cluster does not match: topology is "hcp", expected "crc"',
    );
    expect(warned.stdout).toBe(`${path.join(dir, 'w')}\n`);
    expect((await ns.api.get<ClusterLease>(LEASES, 'cli-warn', ns.name)).status?.phase).toBe(
      'Bound',
    );
    await guestcluster('lease', 'release', 'cli-warn');
    await guestcluster('lease', 'release', 'cli-v416');
  });
});

describe('guestcluster lease release --job-status, --hold-on-failure, and lease hold', () => {
  const POOL = 'holdable';
  const held = (name: string): Promise<ClusterLease> =>
    ns.api.get<ClusterLease>(LEASES, name, ns.name);
  /** The end of a hold: boundTime plus the TTL the hold wrote, in whole seconds. */
  const holdEnd = (lease: ClusterLease): number =>
    Date.parse(lease.status!.boundTime!) + Number(/^(\d+)s$/.exec(lease.spec.ttl!)![1]) * 1000;

  beforeAll(async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, POOL, { maxSize: 5, maxLeaseDuration: '2h', maxHoldDuration: '10m' }),
    );
    // One Ready instance per lease of this part: no instance controller runs to make more.
    for (const n of [0, 1, 2, 3, 4]) await readyInstance(POOL, `${POOL}-${n}`);
  });

  const acquired = async (name: string): Promise<void> => {
    const result = await guestcluster(
      ...['lease', 'acquire', '--pool', POOL, '--name', name, '--ttl', '1h'],
      ...['--kubeconfig-out', path.join(dir, `${name}.kubeconfig`)],
    );
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
  };

  it("after a failed job, writes the lease's diagnostics and holds it for the time asked", async () => {
    await acquired('cli-failed');
    const folder = path.join(dir, 'artifacts', 'diagnostics');
    const before = Date.now();
    const result = await guestcluster(
      ...['lease', 'release', 'cli-failed', '--job-status', 'failed'],
      ...['--hold-on-failure', '5m', '--diagnostics-out', folder],
    );
    expect(result.code).toBe(0);
    const lease = await held('cli-failed');
    expect(lease.metadata?.deletionTimestamp).toBeUndefined();
    expect(lease.metadata?.labels?.[LABEL_LEASE_HELD]).toBe('true');
    expect(holdEnd(lease)).toBeGreaterThanOrEqual(before + 5 * 60_000);
    expect(holdEnd(lease)).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000);
    const until = new Date(holdEnd(lease)).toISOString().replace('.000', '');
    expect(result.stdout).toBe(`ClusterLease ${ns.name}/cli-failed: held until ${until}\n`);
    expect(result.stderr).toContain(
      `Held ClusterLease ${ns.name}/cli-failed for 5m00s after the job failed: the operator releases it at ${until}`,
    );
    expect(result.stderr).toContain(
      `guestcluster lease kubeconfig cli-failed -n ${ns.name} --kubeconfig-out guest.kubeconfig`,
    );
    // The operator takes the hold: it records when it began, and releases the lease at its end.
    const seen = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      name: 'cli-failed',
      namespace: ns.name,
      until: (l) => Boolean(l?.status?.heldAt) && l?.status?.expiresAt === until,
      description: 'ClusterLease cli-failed held until the end of its hold',
    });
    expect(seen?.status?.heldAt).toBeDefined();

    // The diagnostics, before the hold, as the Action writes them to its job summary.
    expect(result.stderr).toContain(
      `wrote the diagnostics of ClusterLease ${ns.name}/cli-failed to ${folder}`,
    );
    for (const file of ['diagnostics.md', 'diagnostics.json'])
      expect((await stat(path.join(folder, file))).mode & 0o777).toBe(0o600);
    const markdown = await readFile(path.join(folder, 'diagnostics.md'), 'utf8');
    expect(markdown).toContain(`# Diagnostics: lease ${ns.name}/cli-failed`);
    expect(markdown).toContain('not readable with these credentials (Forbidden)');
    expect(markdown).not.toMatch(/client-key-data|token:/);

    // A second failed release keeps the hold it finds: a hold is set once.
    const again = await guestcluster(
      ...['lease', 'release', 'cli-failed', '--job-status', 'failure'],
      ...['--hold-on-failure', '5m', '--no-diagnostics', '-o', 'json'],
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ result: 'already-held', until });
    expect((await held('cli-failed')).spec.ttl).toBe(lease.spec.ttl);
    // The plain release ends a hold at once.
    expect((await guestcluster('lease', 'release', 'cli-failed')).stdout).toBe(
      `ClusterLease ${ns.name}/cli-failed: released\n`,
    );
  });

  it('releases as always after a successful or cancelled job, and writes no diagnostics', async () => {
    for (const [name, status] of [
      ['cli-passed', 'success'],
      ['cli-cancelled', 'canceled'],
    ] as const) {
      await acquired(name);
      const result = await run(
        'guestcluster',
        ['lease', 'release', name, '--job-status', status, '--hold-on-failure', '5m'],
        env,
        dir,
      ).done;
      expect([status, result.code, result.stdout]).toEqual([
        status,
        0,
        `ClusterLease ${ns.name}/${name}: released\n`,
      ]);
      await gone(name);
      await expect(stat(path.join(dir, `guestcluster-diagnostics-${name}`))).rejects.toMatchObject({
        code: 'ENOENT',
      });
    }
    const bad = await guestcluster('lease', 'release', 'cli-bound', '--job-status', 'running');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--job-status is "running"; expected success, failure or cancelled',
    );
  });

  it("lease hold refuses a hold beyond the pool's maxHoldDuration, naming it, and holds within it", async () => {
    await acquired('cli-hold');
    const refused = await guestcluster('lease', 'hold', 'cli-hold', '--for', '20m');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `ClusterLease ${ns.name}/cli-hold cannot be held: a hold of 20m00s is beyond the pool's spec.maxHoldDuration (10m); at most 10m00s can be held now`,
    );
    const untouched = await held('cli-hold');
    expect(untouched.metadata?.labels?.[LABEL_LEASE_HELD]).toBeUndefined();
    expect(untouched.spec.ttl).toBe('1h');

    const result = await guestcluster('lease', 'hold', 'cli-hold', '--for', '10m', '-o', 'json');
    expect(result.code).toBe(0);
    const lease = await held('cli-hold');
    expect(lease.metadata?.labels?.[LABEL_LEASE_HELD]).toBe('true');
    expect(JSON.parse(result.stdout)).toEqual({
      name: 'cli-hold',
      namespace: ns.name,
      result: 'held',
      ttl: lease.spec.ttl,
      until: new Date(holdEnd(lease)).toISOString().replace('.000', ''),
      holdSeconds: 600,
      shortenedBy: null,
    });
    expect(lease.status?.conditions?.find((c) => c.type === 'TTLAccepted')?.status).not.toBe(
      'False',
    );

    // Only a bound lease can be held.
    await ns.api.create(LEASES, {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      metadata: { name: 'cli-waiting', namespace: ns.name },
      spec: { poolRef: { name: 'busy' } },
    });
    const waiting = await guestcluster('lease', 'hold', 'cli-waiting', '--for', '5m');
    expect(waiting.code).toBe(2);
    expect(waiting.stderr).toContain(
      `ClusterLease ${ns.name}/cli-waiting is not bound: only a bound lease can be held`,
    );
    expect((await guestcluster('lease', 'hold', 'absent-lease', '--for', '5m')).code).toBe(1);
    expect((await guestcluster('lease', 'hold', 'cli-hold', '--for', 'ever')).code).toBe(2);
    await guestcluster('lease', 'release', 'cli-waiting');
    await guestcluster('lease', 'release', 'cli-hold');
  });

  it('lease hold is refused by admission and by the operator where the CLI cannot read the pool', async () => {
    await acquired('cli-blind');
    // An identity that may not read pools: the CLI cannot check the hold against the pool's
    // limits itself; admission and the lease controller still do.
    const manifest = [
      'apiVersion: v1',
      'kind: ServiceAccount',
      `metadata: {name: no-pools, namespace: ${ns.name}}`,
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: Role',
      `metadata: {name: no-pools, namespace: ${ns.name}}`,
      'rules: [{apiGroups: [guestcluster.opdev.io], resources: [clusterleases], verbs: [get, watch, patch]}]',
      '---',
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: RoleBinding',
      `metadata: {name: no-pools, namespace: ${ns.name}}`,
      'roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: no-pools}',
      `subjects: [{kind: ServiceAccount, name: no-pools, namespace: ${ns.name}}]`,
    ].join('\n');
    await kubectl(['apply', '-f', '-'], manifest);
    const { stdout: token } = await kubectl(['-n', ns.name, 'create', 'token', 'no-pools']);
    const blind = path.join(dir, 'no-pools.kubeconfig');
    const ciConfig = await readFile(env.KUBECONFIG!, 'utf8');
    await writeFile(blind, ciConfig.replace(/token: [^}\s]+/, `token: ${token.trim()}`), {
      mode: 0o600,
    });
    await installLeaseTtlPolicy(ns.api, ns.name, POOL);
    const holdFor = (duration: string): Promise<Finished> =>
      guestcluster('lease', 'hold', 'cli-blind', '--for', duration, '--kubeconfig', blind);

    // Beyond maxLeaseDuration plus maxHoldDuration from binding: admission refuses the write.
    const refused = await holdFor('3h');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `ClusterLease ${ns.name}/cli-blind cannot be held: .*spec\\.ttl \\d+s is above what ClusterPool ${POOL} allows: spec\\.maxLeaseDuration 2h plus spec\\.maxHoldDuration 10m \\(the lease is held\\), counted from binding`,
      ),
    );
    const unchanged = await held('cli-blind');
    expect(unchanged.metadata?.labels?.[LABEL_LEASE_HELD]).toBeUndefined();
    expect(unchanged.spec.ttl).toBe('1h');

    // Within what admission allows, but beyond both maxLeaseDuration from binding and
    // maxHoldDuration from the hold's start: the lease controller does not take it.
    const notTaken = await holdFor('2h5m');
    expect(notTaken.code).toBe(2);
    expect(notTaken.stderr).toContain(
      `ClusterLease ${ns.name}/cli-blind is labelled held, but the operator did not take its TTL (TTLAbovePoolLimit): `,
    );
    expect(notTaken.stderr).toContain(`reaches beyond what ClusterPool ${POOL} allows`);
    const kept = await held('cli-blind');
    expect(Date.parse(kept.status!.expiresAt!) - Date.parse(kept.status!.boundTime!)).toBe(
      3_600_000,
    );
    await guestcluster('lease', 'release', 'cli-blind');
  });
});

describe('guestcluster as a kubectl plugin, and its shell completion', () => {
  it('runs as `kubectl guestcluster` through kubectl-guestcluster on the PATH', async () => {
    const plugins = await run(testEnv('kubectl'), ['plugin', 'list', '--name-only'], env).done;
    expect(plugins.stdout.split('\n')).toContain('kubectl-guestcluster');
    const listed = await run(
      testEnv('kubectl'),
      ['guestcluster', 'lease', 'list', '-o', 'name'],
      env,
    ).done;
    expect(listed).toMatchObject({ code: 0, stdout: 'cli-bound\n' });
    const help = await run(testEnv('kubectl'), ['guestcluster', '--help'], env).done;
    expect(help.stdout).toContain('Usage: kubectl-guestcluster');
  });

  /** What bash offers after `words` (the last one being completed). */
  async function complete(script: string, words: string[]): Promise<string[]> {
    const file = path.join(dir, 'completion.bash');
    await writeFile(file, script);
    const program = [
      `source ${file}`,
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}`,
      '_guestcluster_complete',
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const result = await run('bash', ['-c', program], env).done;
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter(Boolean);
  }

  it('completes commands, flags, formats and lease names in bash', async () => {
    const generated = await guestcluster('completion', 'bash');
    expect(generated.code).toBe(0);
    const script = generated.stdout;
    expect(await complete(script, ['guestcluster', ''])).toEqual([
      'operator',
      'local',
      'lease',
      'diagnose',
      'completion',
    ]);
    expect(await complete(script, ['guestcluster', 'lease', 'e'])).toEqual(['extend']);
    expect(await complete(script, ['guestcluster', 'lease', 'acquire', '--po'])).toEqual([
      '--pool',
    ]);
    expect(await complete(script, ['guestcluster', 'lease', 'list', '-o', ''])).toEqual([
      'text',
      'json',
    ]);
    expect(
      await complete(script, ['guestcluster', 'lease', '-n', ns.name, 'release', 'cli']),
    ).toEqual(['cli-bound']);
    const zsh = await guestcluster('completion', 'zsh');
    expect(zsh.stdout).toBe(
      `autoload -U +X bashcompinit && bashcompinit\n${script.replace('# bash', '# zsh').replace('completion bash', 'completion zsh')}`,
    );
    expect((await guestcluster('completion', 'fish')).code).toBe(2);
  });
});

describe('guestcluster diagnose', () => {
  it('reports a bound lease as far as the caller may read, without a credential', async () => {
    const server = ns.kubeConfig.getCurrentCluster().server;
    await ns.api.create(POOLS, hcpPool(ns.name, 'diag', { maxSize: 1 }));
    await readyInstance('diag', 'diag-0');
    // Its guest is this control plane, at the endpoint its kubeconfig names: it has nodes, but
    // no ClusterOperators (test/hcp/hcp-lease-flow.test.ts diagnoses a guest that has them).
    const settled = await ns.api.get<ClusterInstance>(INSTANCES, 'diag-0', ns.name);
    await ns.api.updateStatus(INSTANCES, {
      ...settled,
      status: { ...settled.status, apiEndpoint: server },
    });
    // A node of the file's own: other files' nodes come and go on the shared control plane.
    const node = await SimulatedManagementNode.start(
      ns.api,
      `diag-node-${randomBytes(3).toString('hex')}`,
      {
        cpu: '1',
        memory: '1Gi',
      },
    );
    try {
      const bound = await guestcluster(
        ...['lease', 'acquire', '--pool', 'diag', '--name', 'cli-diag'],
        ...['--kubeconfig-out', path.join(dir, 'diag.kubeconfig')],
      );
      expect(bound.code).toBe(0);

      const admin = await run(
        'guestcluster',
        ['diagnose', 'lease', 'cli-diag', '-n', ns.name, '--kubeconfig', testEnv('kubeconfig')],
        env,
      ).done;
      expect(admin.code).toBe(0);
      expect(admin.stdout).toContain(`# Diagnostics: lease ${ns.name}/cli-diag`);
      const json = /```json\n([\s\S]*)```\n$/.exec(admin.stdout)![1]!;
      const report = JSON.parse(json) as Diagnostics;
      expect(report.objects.map((o) => `${o.kind}/${o.name}`)).toEqual(
        expect.arrayContaining([
          'ClusterLease/cli-diag',
          'ClusterInstance/diag-0',
          'ClusterPool/diag',
        ]),
      );
      expect(report.guest).toMatchObject({ endpoint: server, reached: true });
      expect(report.guest!.nodes.map((n) => n.name)).toContain(node.name);
      expect(report.guest!.note).toContain(
        'ClusterOperators: /apis/config.openshift.io/v1/clusteroperators',
      );
      for (const match of guestKubeconfig.matchAll(
        /(?:client-key-data|client-certificate-data): (\S+)/g,
      ))
        expect(admin.stdout).not.toContain(match[1]);

      // The CI identity may not read instances: the report says so, and reaches no guest.
      const ci = await guestcluster('diagnose', 'lease', 'cli-diag');
      expect(ci.code).toBe(0);
      expect(ci.stdout).toContain(`ClusterInstance ${ns.name}/diag-0`);
      expect(ci.stdout).toContain('not readable with these credentials (Forbidden)');
      expect(ci.stdout).not.toContain('## Guest cluster');
      expect((await guestcluster('diagnose', 'lease', 'absent-lease')).code).toBe(1);
      expect((await guestcluster('diagnose', 'secret', 'x')).code).toBe(2);
    } finally {
      await guestcluster('lease', 'release', 'cli-diag');
      await node.stop();
    }
  });
});
