import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { ApiError } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource-type.js';
import type { Acquisition } from './acquire.js';
import { acquireLease } from './acquire.js';
import type { LeaseUi } from './lease-ui.js';

const KUBECONFIG = 'apiVersion: v1\nusers:\n- name: u\n  user:\n    token: guest-token\n';

/**
 * The objects a settled lease's acquisition reads and deletes, by kind and name; the lease's
 * pool is not there (its progress line is best effort). A settled lease needs no watch.
 */
class SettledApi {
  readonly objects = new Map<string, KubeObject>();
  readonly deletes: string[] = [];

  get(type: ResourceType, name: string): Promise<KubeObject> {
    const object = this.objects.get(`${type.kind}/${name}`);
    return object
      ? Promise.resolve(structuredClone(object))
      : Promise.reject(new ApiError(404, 'NotFound', `${type.kind} ${name} not found`));
  }

  delete(type: ResourceType, name: string, _namespace?: string, options?: { uid?: string }) {
    this.deletes.push(`${type.kind}/${name} uid ${options?.uid}`);
    this.objects.delete(`${type.kind}/${name}`);
    return Promise.resolve();
  }
}

function lease(phase: string, status: ClusterLease['status'] = {}): ClusterLease {
  return {
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'ClusterLease',
    metadata: { name: 'job-1', namespace: 'ci', uid: 'uid-1', resourceVersion: '7' },
    spec: { poolRef: { name: 'pool' } },
    status: { phase, topology: 'hcp', ocpVersion: '4.16.10', ...status },
  } as ClusterLease;
}

/** Everything the front end was told, in order; the secrets it was asked to mask. */
function recordingUi(): LeaseUi & { lines: string[]; secrets: string[] } {
  const lines: string[] = [];
  const secrets: string[] = [];
  return {
    lines,
    secrets,
    info: (line) => void lines.push(line),
    warning: (line) => void lines.push(`warning: ${line}`),
    group: (title, work) => {
      lines.push(`[${title}]`);
      return work();
    },
    secret: (value) => void secrets.push(value),
  };
}

describe('acquireLease, the one acquire flow of the Action, the CLI and the local lease', () => {
  let dir: string;
  let api: SettledApi;
  let ui: ReturnType<typeof recordingUi>;
  const acquisition = (object: ClusterLease, more: Partial<Acquisition> = {}): Acquisition => ({
    api: api as unknown as ApiClient,
    ui,
    lease: object,
    timeoutMs: 60_000,
    cancelled: new AbortController().signal,
    kubeconfigPath: path.join(dir, 'guest', 'job-1.kubeconfig'),
    releaseUnreachable: false,
    wording: { timeout: '--timeout', cancelled: 'Interrupted' },
    ...more,
  });

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gc-acquire-'));
    api = new SettledApi();
    ui = recordingUi();
    const secret = {
      metadata: { name: 'job-1-kubeconfig' },
      data: { kubeconfig: Buffer.from(KUBECONFIG).toString('base64') },
    };
    api.objects.set('Secret/job-1-kubeconfig', secret);
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('hands a bound lease over: the kubeconfig masked, in a 0600 file, then the front end', async () => {
    const bound = lease('Bound');
    api.objects.set('ClusterLease/job-1', bound);
    const handedOver: string[] = [];
    const result = await acquireLease(
      acquisition(bound, {
        handedOver: (l) => Promise.resolve(void handedOver.push(l.metadata!.name!)),
      }),
    );
    expect(result).toMatchObject({ kind: 'bound', lease: { metadata: { name: 'job-1' } } });
    const file = path.join(dir, 'guest', 'job-1.kubeconfig');
    expect(await readFile(file, 'utf8')).toBe(KUBECONFIG);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(ui.secrets).toEqual([KUBECONFIG, 'guest-token']);
    expect(handedOver).toEqual(['job-1']);
    expect(ui.lines).toEqual([
      '[Wait until it is bound]',
      'ClusterLease job-1: Bound',
      '[Hand the cluster to the job]',
    ]);
    expect(api.deletes).toEqual([]);
  });

  it("releases a failed lease by its UID and says why, in the front end's words", async () => {
    const failed = lease('Failed', {
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'KubeconfigSecretConflict',
          message: 'taken',
          lastTransitionTime: '2026-12-01T00:00:00Z',
        },
      ],
    });
    api.objects.set('ClusterLease/job-1', failed);
    const result = await acquireLease(acquisition(failed));
    expect(result).toEqual({
      kind: 'failed',
      message: 'ClusterLease ci/job-1 failed: KubeconfigSecretConflict: taken',
    });
    expect(api.deletes).toEqual(['ClusterLease/job-1 uid uid-1']);
    expect(ui.lines).toContain('Released ClusterLease ci/job-1 (released)');
  });

  it('fails and releases on a cluster other than expected, or only warns when told to', async () => {
    const bound = lease('Bound');
    api.objects.set('ClusterLease/job-1', bound);
    const expected = {
      expectedTopology: 'crc' as const,
      failSetting: 'input "on-mismatch" is fail',
    };
    await expect(
      acquireLease(acquisition(bound, { expected: { ...expected, onMismatch: 'fail' } })),
    ).rejects.toThrow(
      'The leased cluster does not match: topology is "hcp", expected "crc" (input "on-mismatch" is fail; released the lease)',
    );
    expect(api.deletes).toEqual(['ClusterLease/job-1 uid uid-1']);

    api.objects.set('ClusterLease/job-1', bound);
    const warned = await acquireLease(
      acquisition(bound, { expected: { ...expected, onMismatch: 'warn' } }),
    );
    expect(warned.kind).toBe('bound');
    expect(ui.lines).toContain(
      'warning: The leased cluster does not match: topology is "hcp", expected "crc"',
    );
  });

  it('releases a cluster whose kubeconfig cannot be written only where the front end asks', async () => {
    const bound = lease('Bound');
    await symlink(path.join(dir, 'elsewhere'), path.join(dir, 'guest'));
    for (const releaseUnreachable of [false, true]) {
      api.objects.set('ClusterLease/job-1', bound);
      await expect(acquireLease(acquisition(bound, { releaseUnreachable }))).rejects.toThrow(
        /^Could not write the guest kubeconfig: .*guest is a symbolic link/,
      );
    }
    expect(api.deletes).toEqual(['ClusterLease/job-1 uid uid-1']);
  });
});
