import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import {
  DATA_VOLUMES,
  NODE_POOLS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../operator/api/platform-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { DEFAULT_TIMINGS } from '../../operator/timings.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import {
  hcpPool,
  instancesTornDown,
  lease,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import {
  createCrcPrerequisites,
  manualCrcTemplate,
} from '../support/fixtures/crc-prerequisites.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';
import { conditionOf, waitForInstance, waitForLease } from '../support/fixtures/instance-waits.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { TEST_INSTANCE_TIMINGS } from '../support/test-timings.js';

/*
 * Hibernated spares (docs/reference/kinds.md#hibernation, docs/reference/instances.md#hibernation):
 * a pool with spec.hibernation stops a spare idle for hibernateAfter (on the operator's clock,
 * moved by the test), keeping what it needs to start again; a lease that finds no running spare
 * resumes it, says Resuming, and binds once the resumed guest passed its readiness gates again.
 */

const world = useWorld({
  namespace: 'hibernated-spares',
  enabled: true,
  platform: { crc: {}, hcp: true },
});
const { ns } = world;
const MINUTE = 60_000;
/** A crc guest boots, is finished by the real agent and answers through the router. */
const CRC_READY_MS = 240_000;
const HIBERNATION = { runningSpares: 0, hibernateAfter: '30m' };

const instanceIn = (
  name: string,
  until: (i: ClusterInstance | undefined) => boolean,
  description: string,
  timeoutMs?: number,
): Promise<ClusterInstance> => waitForInstance(ns, name, until, description, timeoutMs);

const leaseIn = (
  name: string,
  until: (l: ClusterLease | undefined) => boolean,
  description: string,
  timeoutMs?: number,
): Promise<ClusterLease> => waitForLease(ns, name, until, description, timeoutMs);

const healthy = (i: ClusterInstance | undefined): boolean =>
  i?.status?.phase === 'Ready' && conditionOf(i, 'GuestHealthy')?.status === 'True';
const hibernated = (i: ClusterInstance | undefined): boolean =>
  i?.status?.phase === 'Hibernated' && conditionOf(i, 'Ready')?.reason === 'Hibernated';

describe('hibernated spares', () => {
  const managers: Manager[] = [];
  let clock = new TestClock();
  const start = async (): Promise<void> => {
    clock = new TestClock();
    // The operator's clock runs half an hour ahead of the apiserver's once moved: the agent Job
    // of a resume, created on the apiserver's time, must not look too old to start.
    const instance = {
      ...DEFAULT_TIMINGS.instance,
      ...TEST_INSTANCE_TIMINGS,
      agentStartDeadlineMs: 2 * 60 * MINUTE,
    };
    managers.push(
      await world.startOperator({ clock, config: { timings: { ...DEFAULT_TIMINGS, instance } } }),
    );
  };

  let sshKeySecret: string;
  beforeAll(async () => {
    ({ sshKeySecret } = await createCrcPrerequisites(world.platform, ns.api, ns.name));
  });

  afterEach(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await instancesTornDown(ns.kubeConfig, ns.name);
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });

  it('refuses a hibernation setting it cannot follow, naming the field', async () => {
    const pool = (hibernation: object): ClusterPool => ({
      ...hcpPool(ns.name, 'invalid', { maxSize: 2 }),
      spec: { ...hcpPool(ns.name, 'invalid', { maxSize: 2 }).spec, hibernation } as never,
    });
    await expect(
      ns.api.create(POOLS, pool({ runningSpares: 0, hibernateAfter: 'soon' })),
    ).rejects.toThrow('spec.hibernation.hibernateAfter must be a Go duration');
    await expect(
      ns.api.create(POOLS, pool({ runningSpares: 0, hibernateAfter: '10s' })),
    ).rejects.toThrow('spec.hibernation.hibernateAfter must be at least 1m and at most 8760h');
    await expect(
      ns.api.create(POOLS, pool({ runningSpares: 3, hibernateAfter: '30m' })),
    ).rejects.toThrow('spec.hibernation.runningSpares must not exceed spec.maxSize');
  });

  it('halts an idle crc spare after hibernateAfter, keeping its disk, and a lease resumes it', async () => {
    await start();
    const pool: ClusterPool = {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: 'crc', namespace: ns.name },
      spec: {
        type: 'crc',
        maxSize: 1,
        warmSpares: 1,
        hibernation: HIBERNATION,
        template: manualCrcTemplate(sshKeySecret),
      },
    };
    await ns.api.create(POOLS, pool);
    const spare = await instanceIn('crc-0', healthy, 'Ready and healthy', CRC_READY_MS);
    const firstVmi = spare.status!.crc!.vmiUID!;
    const disk = await ns.api.get<KubeObject>(
      DATA_VOLUMES,
      spare.status!.crc!.dataVolumeName!,
      ns.name,
    );

    // Not yet idle long enough: it keeps running. Then half an hour on the operator's clock.
    clock.advance(29 * MINUTE);
    const stillRunning = await ns.api.get<ClusterInstance>(INSTANCES, 'crc-0', ns.name);
    expect(stillRunning.spec.powerState).toBeUndefined();
    clock.advance(MINUTE);
    const stopped = await instanceIn('crc-0', hibernated, 'hibernated');
    expect(stopped.spec.powerState).toBe('Hibernating');
    expect(conditionOf(stopped, 'Ready')!.message).toContain('is halted; its disk is kept');
    expect(stopped.status!.kubeconfigSecretRef).toEqual({});
    const vm = await ns.api.get<KubeObject & { spec: { runStrategy?: string } }>(
      VIRTUAL_MACHINES,
      'crc-0',
      ns.name,
    );
    expect(vm.spec.runStrategy).toBe('Halted');
    expect((vm as { status?: { printableStatus?: string } }).status?.printableStatus).toBe(
      'Stopped',
    );
    await expect(ns.api.get(VIRTUAL_MACHINE_INSTANCES, 'crc-0', ns.name)).rejects.toThrow();
    const kept = await ns.api.get<KubeObject>(DATA_VOLUMES, disk.metadata!.name!, ns.name);
    expect(kept.metadata!.uid).toBe(disk.metadata!.uid);
    await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'crc',
      until: (p) => p?.status?.hibernatedInstances === 1 && p.status.availableInstances === 0,
      description: 'the pool counting one hibernated spare and no running one',
    });
    // A hibernated spare is a spare: the pool (maxSize 1, warmSpares 1) makes no other.
    const { items } = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
    expect(items.map((i) => i.metadata!.name)).toEqual(['crc-0']);

    // A lease finds no running spare: it resumes this one, and says so.
    await ns.api.create(LEASES, lease(ns.name, 'job', 'crc', '1h'));
    const resuming = await leaseIn(
      'job',
      (l) => conditionOf(l, 'Ready')?.reason === 'Resuming',
      'resuming the spare',
    );
    expect(conditionOf(resuming, 'Ready')!.message).toContain(
      'resuming hibernated ClusterInstance crc-0',
    );
    const bound = await leaseIn('job', (l) => l?.status?.phase === 'Bound', 'bound', CRC_READY_MS);
    expect(bound.status!.instanceRef!.name).toBe('crc-0');
    const resumed = await ns.api.get<ClusterInstance>(INSTANCES, 'crc-0', ns.name);
    expect(resumed.metadata!.uid).toBe(spare.metadata!.uid);
    expect(resumed.spec.powerState).toBe('Running');
    // A new boot of the same disk, finished by the agent again and checked again before hand-out.
    expect(resumed.status!.crc!.vmiUID).not.toBe(firstVmi);
    expect(resumed.status!.crc!.dataVolumeUID).toBe(disk.metadata!.uid);
    const { resumeStartedAt, resumedAt } = resumed.status!.hibernation!;
    expect(Date.parse(resumedAt!)).toBeGreaterThanOrEqual(Date.parse(resumeStartedAt!));
    expect(Date.parse(resumed.status!.guestHealth!.checkedAt!)).toBeGreaterThanOrEqual(
      Date.parse(resumeStartedAt!),
    );
    expect(conditionOf(resumed, 'GuestHealthy')!.status).toBe('True');
  });

  it('scales an idle hcp spare to no workers, keeps its control plane, and a lease resumes it', async () => {
    await createPullSecret(ns.api, ns.name).catch(() => undefined);
    await start();
    const pool = hcpPool(ns.name, 'hcp', { maxSize: 1, warmSpares: 1 });
    pool.spec.hibernation = HIBERNATION;
    await ns.api.create(POOLS, pool);
    const spare = await instanceIn('hcp-0', healthy, 'Ready and healthy');
    const { hostedClusterNamespace, nodePoolNames } = spare.status!.hyperShift!;
    const nodePoolName = nodePoolNames![0]!;

    clock.advance(30 * MINUTE);
    const stopped = await instanceIn('hcp-0', hibernated, 'hibernated');
    expect(conditionOf(stopped, 'Ready')!.message).toContain(
      'has no workers; the hosted control plane keeps running',
    );
    const nodePool = await ns.api.get<
      KubeObject & { spec: { replicas: number }; status: { replicas: number } }
    >(NODE_POOLS, nodePoolName, hostedClusterNamespace);
    expect(nodePool.spec.replicas).toBe(0);
    expect(nodePool.status.replicas).toBe(0);

    await ns.api.create(LEASES, lease(ns.name, 'hcp-job', 'hcp', '1h'));
    const resuming = await leaseIn(
      'hcp-job',
      (l) => conditionOf(l, 'Ready')?.reason === 'Resuming',
      'resuming the spare',
    );
    expect(conditionOf(resuming, 'Ready')!.message).toContain(
      'resuming hibernated ClusterInstance hcp-0',
    );
    const bound = await leaseIn('hcp-job', (l) => l?.status?.phase === 'Bound', 'bound');
    expect(bound.status!.instanceRef).toEqual({ name: 'hcp-0', uid: spare.metadata!.uid });
    const workers = await ns.api.get<
      KubeObject & { spec: { replicas: number }; status: { replicas: number } }
    >(NODE_POOLS, nodePoolName, hostedClusterNamespace);
    expect(workers.spec.replicas).toBe(1);
    expect(workers.status.replicas).toBe(1);
  });
});
