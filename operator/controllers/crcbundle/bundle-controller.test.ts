import { beforeEach, describe, expect, it } from '@jest/globals';
import { findCondition } from '../../api/conditions.js';
import {
  CONFIG_MAPS,
  JOBS,
  LABEL_JOB_NAME,
  PODS,
  PVCS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
} from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import { createLogger } from '../../runtime/logger.js';
import { DEFAULT_TIMINGS } from '../../timings.js';
import type { FakePorts } from '../../../test/support/fake-ports.js';
import { fakePorts } from '../../../test/support/fake-ports.js';
import type { BundleSettings } from '../bundles/bundle-settings.js';
import { BundleController, PREP_RETRY_BACKOFF } from './bundle-controller.js';
import { PREP_CONTAINER } from './prep-job.js';

const OPS = 'guestcluster-operator-system';
const NAME = 'crc-4.16.0-amd64';
const context = { logger: createLogger('error') };
const SETTINGS: BundleSettings = {
  operatorNamespace: OPS,
  crcAgentImage: 'agent:test',
  crcBundleMirrorUrl: 'https://mirror.example.test',
  crc: { allowedVersions: undefined, maxPreparing: 1, maxBuilding: 1 },
  timings: { build: DEFAULT_TIMINGS.build },
};

type Any = KubeObject & {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  data?: Record<string, string>;
};

/**
 * BundleController.reconcile (the download) on in-memory ports: each case runs the passes a
 * bundle gets, one by one, and the last one again, which must change nothing. The prep Job's run
 * (its pod, its outputs) is played between passes; test/operator/crc-bundles.test.ts runs the
 * real bundle-prep against a mirror.
 */
describe('BundleController.reconcile (download)', () => {
  let ports: FakePorts;
  let controller: BundleController;

  beforeEach(() => {
    ports = fakePorts();
    controller = new BundleController(ports, SETTINGS);
  });

  const seed = (type: ResourceType, object: Any): Any => ports.api.seed<Any>(type, object);
  const peek = (type: ResourceType, name: string): Any | undefined =>
    ports.api.peek<Any>(type, name, OPS);
  const bundle = (name = NAME): CRCBundle | undefined => ports.api.peek<CRCBundle>(BUNDLES, name);
  const condition = (type: string) => findCondition(bundle()?.status?.conditions, type);
  const reasons = (): string[] => ports.events.recorded.map((e) => e.reason);
  const seedBundle = (name = NAME): Any =>
    seed(BUNDLES, { metadata: { name }, spec: { version: '4.16.0', arch: 'amd64' } });

  /**
   * The passes while they write; then the last pass again, which must change nothing. Returns
   * each writing pass's writes and the settled result.
   */
  async function settle(limit = 6): Promise<{ passes: string[][]; result: unknown }> {
    const passes: string[][] = [];
    for (;;) {
      const writes = ports.api.writes.length;
      const events = ports.events.recorded.length;
      const result = await controller.reconcile(NAME, context);
      const made = ports.api.writes.slice(writes);
      if (made.length > 0) {
        passes.push(made);
        if (passes.length > limit) throw new Error(`no fixed point after ${limit} passes`);
        continue;
      }
      expect(ports.events.recorded.length).toBe(events);
      expect(await controller.reconcile(NAME, context)).toEqual(result);
      expect(ports.api.writes.length).toBe(writes);
      return { passes, result };
    }
  }

  /** The prep Job's part: it filled its outputs and succeeded, or its pods failed. */
  function endPrep(ok: boolean): void {
    const job = peek(JOBS, `${NAME}-prep`)!;
    if (ok) {
      const key = peek(SECRETS, `${NAME}-ssh-key`)!;
      seed(SECRETS, { ...key, data: { id_ecdsa: Buffer.from('key').toString('base64') } });
      const metadata = peek(CONFIG_MAPS, `${NAME}-metadata`)!;
      seed(CONFIG_MAPS, {
        ...metadata,
        data: {
          ocpVersion: '4.16.0',
          sha256: 'a'.repeat(64),
          diskSHA256: 'b'.repeat(64),
          diskVirtualSizeBytes: '1024',
        },
      });
      seed(JOBS, { ...job, status: { succeeded: 1 } });
      return;
    }
    seed(PODS, {
      metadata: {
        name: `${NAME}-prep-x`,
        namespace: OPS,
        labels: { [LABEL_JOB_NAME]: `${NAME}-prep` },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: job.metadata!.name!,
            uid: job.metadata!.uid!,
            controller: true,
          },
        ],
      },
      status: {
        containerStatuses: [
          {
            name: PREP_CONTAINER,
            state: {
              terminated: {
                exitCode: 1,
                message: JSON.stringify({ step: 'Verify', message: 'checksum mismatch' }),
                finishedAt: '2026-12-01T12:00:00Z',
              },
            },
          },
        ],
      },
    });
    seed(JOBS, {
      ...job,
      status: { failed: 3, conditions: [{ type: 'Failed', status: 'True' }] },
    });
  }

  it('makes the volumes, the outputs, the account that may fill them and the prep Job, then says Preparing', async () => {
    seedBundle();
    const { passes } = await settle();
    expect(passes).toEqual([
      [
        `create PersistentVolumeClaim ${OPS}/${NAME}-golden`,
        `create PersistentVolumeClaim ${OPS}/${NAME}-scratch`,
        `create Secret ${OPS}/${NAME}-ssh-key`,
        `create ConfigMap ${OPS}/${NAME}-metadata`,
        `create ServiceAccount ${OPS}/${NAME}-prep`,
        `create Role ${OPS}/${NAME}-prep`,
        `create RoleBinding ${OPS}/${NAME}-prep`,
        `create Job ${OPS}/${NAME}-prep`,
        `status CRCBundle ${NAME}`,
      ],
    ]);
    expect(bundle()?.status?.phase).toBe('Preparing');
    expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'Preparing' });
    expect(condition('Prepared')).toMatchObject({ status: 'Unknown', reason: 'PrepRunning' });
    expect(peek(JOBS, `${NAME}-prep`)?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'CRCBundle',
        uid: bundle()?.metadata?.uid,
        controller: true,
      }),
    ]);
    for (const type of [SERVICE_ACCOUNTS, ROLES, ROLE_BINDINGS])
      expect(peek(type, `${NAME}-prep`)).toBeDefined();
    expect(reasons()).toEqual(['Preparing']);
  });

  it('publishes a prepared bundle as Ready, then removes the Job and the scratch volume', async () => {
    seedBundle();
    await settle();
    endPrep(true);
    const { passes } = await settle();
    expect(passes).toEqual([
      [
        `status CRCBundle ${NAME}`,
        `delete Job ${OPS}/${NAME}-prep`,
        `delete PersistentVolumeClaim ${OPS}/${NAME}-scratch`,
      ],
    ]);
    expect(bundle()?.status).toMatchObject({
      phase: 'Ready',
      qcow2PVCRef: { name: `${NAME}-golden` },
      qcow2PVCNamespace: OPS,
      sshKeySecretRef: { name: `${NAME}-ssh-key` },
      ocpVersion: '4.16.0',
      sha256: 'a'.repeat(64),
      diskSHA256: 'b'.repeat(64),
      diskVirtualSizeBytes: 1024,
    });
    expect(condition('Ready')).toMatchObject({ status: 'True', reason: 'BundleReady' });
    expect(condition('Prepared')).toMatchObject({ status: 'True', reason: 'PrepSucceeded' });
    expect(reasons()).toEqual(['Preparing', 'BundleReady']);
  });

  it('fails with the failed step, retries after the backoff, and prepares again', async () => {
    seedBundle();
    await settle();
    endPrep(false);
    const failed = await settle();
    expect(failed.passes).toEqual([[`status CRCBundle ${NAME}`]]);
    expect(failed.result).toEqual({ requeueAfterMs: PREP_RETRY_BACKOFF.baseMs });
    expect(bundle()?.status?.phase).toBe('Failed');
    expect(condition('Ready')).toMatchObject({
      reason: 'PrepJobFailed',
      message: expect.stringContaining(
        'failed in step Verify (backoffLimit exhausted): checksum mismatch',
      ),
    });
    expect(condition('Prepared')).toMatchObject({ status: 'False', reason: 'VerifyFailed' });

    // Once the backoff has passed, the failed Job goes; without it the bundle starts again.
    ports.clock.advance(PREP_RETRY_BACKOFF.baseMs);
    const retried = await settle();
    expect(retried.passes[0]).toEqual([`delete Job ${OPS}/${NAME}-prep`]);
    expect(retried.passes.flat()).toContain(`create Job ${OPS}/${NAME}-prep`);
    expect(bundle()?.status?.phase).toBe('Preparing');
    expect(reasons()).toEqual(['Preparing', 'PrepJobFailed', 'RetryingPrep', 'Preparing']);
    expect(ports.events.recorded.at(-1)?.message).toContain('(retry)');
  });

  it('prepares a Ready bundle again when its golden volume is gone', async () => {
    seedBundle();
    await settle();
    endPrep(true);
    await settle();
    await ports.api.delete(PVCS, `${NAME}-golden`, OPS);
    const { passes } = await settle();
    expect(passes[0]).toEqual([`status CRCBundle ${NAME}`]);
    expect(passes.flat()).toContain(`create PersistentVolumeClaim ${OPS}/${NAME}-golden`);
    expect(reasons()).toContain('Reprovisioning');
    expect(bundle()?.status?.phase).toBe('Preparing');
  });

  it('waits for a preparation slot while as many downloads as allowed run, and never for a build', async () => {
    seedBundle('crc-4.15.0-amd64');
    await controller.reconcile('crc-4.15.0-amd64', context);
    // A build in Preparing takes no download's slot.
    seed(BUNDLES, {
      metadata: { name: 'built' },
      spec: { build: { releaseImage: 'quay.io/x@sha256:00', pullSecretRef: { name: 'p' } } },
      status: { phase: 'Preparing' },
    });
    seedBundle();
    const { passes } = await settle();
    expect(passes).toEqual([[`status CRCBundle ${NAME}`]]);
    expect(condition('Ready')).toMatchObject({
      reason: 'WaitingForPreparation',
      message: expect.stringContaining('1 CRCBundle(s) are being prepared (crc-4.15.0-amd64)'),
    });
  });

  it('leaves a build bundle to the build controller', async () => {
    seed(BUNDLES, {
      metadata: { name: NAME },
      spec: { build: { releaseImage: 'quay.io/x@sha256:00', pullSecretRef: { name: 'p' } } },
    });
    const { passes } = await settle();
    expect(passes).toEqual([]);
    expect(bundle()?.metadata?.finalizers).toBeUndefined();
  });
});
