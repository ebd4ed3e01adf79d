import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, POOLS } from '../../client/api/resources.js';
import { isNotFound } from '../../client/kube/api-error.js';
import type { Manager } from '../../operator/runtime/manager.js';
import type { OperatorConfig } from '../../operator/config.js';
import { useWorld } from '../support/world.js';
import { eventFor } from '../support/events.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { hcpPool, instancesTornDown } from '../support/fixtures/pool-fixtures.js';
import {
  createCrcPrerequisites,
  manualCrcTemplate,
} from '../support/fixtures/crc-prerequisites.js';
import type { Condition } from '../support/fixtures/instance-waits.js';
import { conditionOf, waitForInstance } from '../support/fixtures/instance-waits.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { PLATFORM_GATE_CONDITIONS } from '../../operator/controllers/clusterinstance/platform-readiness.js';

/*
 * Provisioning deadlines (docs/reference/instances.md#provisioning-deadline): an instance stuck on
 * the platform says what it waits for in the platform's words, fails at its deadline with
 * ProvisioningTimedOut naming that wait, and its pool replaces it. The deadlines pass on the test
 * clock; the platform's injected faults keep each instance stuck where a real one sticks.
 */

/**
 * Where a deadline is counted from: the start, or when the platform's gates last turned True if
 * that was later (a pass that records them in the next second moves the deadline with them).
 */
function countedFrom(instance: ClusterInstance): number {
  return Math.max(
    Date.parse(instance.status!.provisioning!.startedAt),
    ...PLATFORM_GATE_CONDITIONS.map((type) => {
      const gate = conditionOf(instance, type);
      return gate?.status === 'True' && gate.lastTransitionTime
        ? Date.parse(gate.lastTransitionTime)
        : 0;
    }),
  );
}

const world = useWorld({
  namespace: 'deadlines',
  enabled: true,
  platform: { crc: { guestApi: 'never-ready' }, hcp: true },
});
const { ns } = world;
const MINUTE = 60_000;

const ready = (instance: ClusterInstance | undefined): Condition | undefined =>
  conditionOf(instance, 'Ready');
const waitInstance = (
  name: string,
  until: (instance: ClusterInstance | undefined) => boolean,
  description: string,
): Promise<ClusterInstance> => waitForInstance(ns, name, until, description);

const timedOut = (instance: ClusterInstance | undefined): boolean =>
  instance?.status?.phase === 'Failed' && ready(instance)?.reason === 'ProvisioningTimedOut';

describe('provisioning deadlines', () => {
  let sshKeySecret: string;
  const managers: Manager[] = [];
  // A clock of each test's own: the deadline of an agent Job counts from its creationTimestamp, in
  // the apiserver's time.
  let clock = new TestClock();
  const start = async (config?: Partial<OperatorConfig>): Promise<Manager> => {
    clock = new TestClock();
    const manager = await world.startOperator({ clock, ...(config ? { config } : {}) });
    managers.push(manager);
    return manager;
  };

  beforeAll(async () => {
    ({ sshKeySecret } = await createCrcPrerequisites(world.platform, ns.api, ns.name));
  });

  afterEach(async () => {
    const gone = (error: unknown): void => {
      if (!isNotFound(error)) throw error;
    };
    for (const pool of (await ns.api.list<ClusterPool>(POOLS, { namespace: ns.name })).items)
      await ns.api.delete(POOLS, pool.metadata!.name!, ns.name).catch(gone);
    for (const instance of (await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name }))
      .items)
      await ns.api.delete(INSTANCES, instance.metadata!.name!, ns.name).catch(gone);
    await instancesTornDown(ns.kubeConfig, ns.name);
    await Promise.all(managers.splice(0).map((m) => m.stop()));
  });

  const crcInstance = (name: string, provisioningTimeout?: string): ClusterInstance => ({
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    metadata: { name, namespace: ns.name },
    spec: {
      type: 'crc',
      template: manualCrcTemplate(sshKeySecret),
      ...(provisioningTimeout ? { provisioningTimeout } : {}),
    },
  });

  it('fails a crc instance whose import stalls at its pool deadline, in CDI words, and replaces it', async () => {
    world.platform.stalledDataVolumes.add('stall-0');
    await start();
    const pool: ClusterPool = {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      metadata: { name: 'stall', namespace: ns.name },
      spec: {
        type: 'crc',
        maxSize: 1,
        minSize: 0,
        warmSpares: 1,
        provisioningTimeout: '5m',
        template: manualCrcTemplate(sshKeySecret),
      },
    };
    await ns.api.create(POOLS, pool);
    // Before its deadline (shorter than the disk's own stall deadline) the instance says what it
    // waits for, in CDI's words.
    const stuck = await waitInstance(
      'stall-0',
      (i) =>
        ready(i)?.reason === 'DataVolumePending' &&
        !!ready(i)?.message.includes('ImportInProgress') &&
        !!i?.status?.provisioningDeadline,
      'waiting for its disk in CDI words',
    );
    expect(stuck.spec.provisioningTimeout).toBe('5m');
    expect(ready(stuck)!.message).toBe(
      `waiting for DataVolume ${ns.name}/${stuck.status!.crc!.dataVolumeName} to be filled: phase ImportInProgress, progress 0.00%; CDI reports Running=True (Pod is running)`,
    );
    expect(Date.parse(stuck.status!.provisioningDeadline!)).toBe(countedFrom(stuck) + 5 * MINUTE);

    clock.advance(5 * MINUTE);
    const failed = await waitInstance('stall-0', timedOut, 'timed out');
    expect(failed.metadata!.uid).toBe(stuck.metadata!.uid);
    expect(ready(failed)!.message).toBe(
      `Provisioning did not finish within 5m0s (spec.provisioningTimeout); it was still waiting: DataVolumePending: ${ready(stuck)!.message}; diagnostics in ConfigMap ${ns.name}/stall-0-diagnostics-${failed.metadata!.uid!.slice(0, 8)}`,
    );
    expect(conditionOf(failed, 'ProvisioningTimedOut')).toMatchObject({
      status: 'True',
      reason: 'DataVolumePending',
      message: ready(stuck)!.message,
    });

    // The pool replaces it (a new instance of the same name), and says provisioning keeps failing.
    const replacement = await waitInstance(
      'stall-0',
      (i) => !!i && i.metadata!.uid !== stuck.metadata!.uid,
      'replaced',
    );
    expect(replacement.status?.phase).not.toBe('Failed');
    const replaced = await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterInstance', name: 'stall-0' },
      'InstanceFailed',
    );
    expect(replaced.message).toContain('ProvisioningTimedOut: Provisioning did not finish');
    const unhealthy = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'stall',
      until: (p) =>
        p?.status?.conditions?.find((c) => c.type === 'ProvisioningHealthy')?.status === 'False',
      description: 'the pool to say that provisioning keeps failing',
    });
    expect(
      unhealthy!.status!.conditions!.find((c) => c.type === 'ProvisioningHealthy'),
    ).toMatchObject({ reason: 'InstancesFailing' });
    expect(
      unhealthy!.status!.conditions!.find((c) => c.type === 'ProvisioningHealthy')!.message,
    ).toContain('ProvisioningTimedOut');
    world.platform.stalledDataVolumes.delete('stall-0');
  });

  it('fails a crc instance whose disk makes no progress at the stall deadline, before its own', async () => {
    world.platform.stalledDataVolumes.add('frozen');
    await start();
    await ns.api.create(INSTANCES, crcInstance('frozen', '2h'));
    // CDI reports N/A until the importer runs, then 0.00%: the record follows what CDI reports.
    const stuck = await waitInstance(
      'frozen',
      (i) => i?.status?.crc?.diskProgress?.progress === '0.00%',
      'its disk progress recorded as 0.00%',
    );
    expect(Date.parse(stuck.status!.crc!.diskProgress!.since)).toBeLessThanOrEqual(clock.now());

    clock.advance(10 * MINUTE);
    const failed = await waitInstance(
      'frozen',
      (i) => i?.status?.phase === 'Failed',
      'failed for its stalled disk',
    );
    expect(ready(failed)).toMatchObject({ reason: 'DataVolumeStalled' });
    expect(ready(failed)!.message).toMatch(
      /^the root disk made no progress for 10m0s \(instance.dataVolumeStallDeadline\): waiting for DataVolume \S+ to be filled: phase ImportInProgress, progress 0.00%/,
    );
    world.platform.stalledDataVolumes.delete('frozen');
  });

  it('fails a crc instance whose agent Job cannot start at the agent start deadline, with the pod words', async () => {
    await start({ crcAgentImage: 'registry.invalid/crc-agent:absent' });
    await ns.api.create(INSTANCES, crcInstance('no-agent', '2h'));
    const blocked = await waitInstance(
      'no-agent',
      (i) => ready(i)?.reason === 'AgentPodBlocked',
      'waiting for its agent pod',
    );
    expect(ready(blocked)!.message).toContain('ImagePullBackOff');

    clock.advance(10 * MINUTE);
    const failed = await waitInstance(
      'no-agent',
      (i) => i?.status?.phase === 'Failed',
      'failed for its agent',
    );
    expect(ready(failed)).toMatchObject({ reason: 'AgentJobNotStarted' });
    expect(ready(failed)!.message).toMatch(
      new RegExp(
        `^crc-agent Job ${ns.name}/\\S+ did not start within 10m0s \\(instance.agentStartDeadline\\): AgentPodBlocked: .*ImagePullBackOff`,
      ),
    );
    expect(conditionOf(failed, 'CRCAgent')).toMatchObject({ reason: 'AgentPodBlocked' });
  });

  it('fails an hcp instance whose HostedCluster never becomes Available at the hcp default', async () => {
    world.platform.neverAvailable.add('unavailable-0');
    await start();
    await ns.api.create(POOLS, hcpPool(ns.name, 'unavailable', { maxSize: 1, warmSpares: 1 }));
    const stuck = await waitInstance(
      'unavailable-0',
      (i) =>
        ready(i)?.reason === 'HostedClusterNotAvailable' &&
        !!ready(i)?.message.includes('WaitingForAvailable') &&
        !!i?.status?.provisioningDeadline,
      'waiting for its HostedCluster in HyperShift words',
    );
    expect(Date.parse(stuck.status!.provisioningDeadline!)).toBe(countedFrom(stuck) + 45 * MINUTE);

    clock.advance(45 * MINUTE);
    const failed = await waitInstance('unavailable-0', timedOut, 'timed out');
    expect(ready(failed)!.message).toMatch(
      /^Provisioning did not finish within 45m0s \(the hcp default\); it was still waiting: HostedClusterNotAvailable: .*WaitingForAvailable/,
    );
    await waitInstance(
      'unavailable-0',
      (i) => !!i && i.metadata!.uid !== stuck.metadata!.uid,
      'replaced',
    );
    world.platform.neverAvailable.delete('unavailable-0');
  });

  it('fails an hcp instance whose workers never join at its own deadline', async () => {
    world.platform.noWorkers.add('workerless');
    await start();
    const { ocpVersion = '4.16.10', ...template } = hcpPool(ns.name, 'unused').spec.template;
    await ns.api.create<ClusterInstance>(INSTANCES, {
      apiVersion: INSTANCES.apiVersion,
      kind: INSTANCES.kind,
      metadata: { name: 'workerless', namespace: ns.name },
      spec: { type: 'hcp', template: { ...template, ocpVersion }, provisioningTimeout: '20m' },
    });
    await waitInstance(
      'workerless',
      (i) => ready(i)?.reason === 'NodePoolNotReady',
      'waiting for its workers',
    );
    clock.advance(20 * MINUTE);
    const failed = await waitInstance('workerless', timedOut, 'timed out');
    expect(conditionOf(failed, 'ProvisioningTimedOut')).toMatchObject({
      reason: 'NodePoolNotReady',
    });
    world.platform.noWorkers.delete('workerless');
  });
});
