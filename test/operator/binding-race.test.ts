import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { waitForList } from '../../dev/support/wait-for.js';
import {
  fillPool,
  hcpPool,
  lease,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import { inBatches } from '../support/batches.js';

const world = useWorld({ namespace: 'race', enabled: true });
const { ns } = world;
const INSTANCE_COUNT = 100;
const LEASE_COUNT = 200;

describe('binding with two managers and no leader election', () => {
  const managers: Manager[] = [];
  afterAll(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await Promise.all(managers.map((m) => m.stop()));
  });

  it(`never gives one instance to two leases: ${LEASE_COUNT} leases race for ${INSTANCE_COUNT} instances`, async () => {
    // warmSpares = maxSize keeps the pool from trimming or adding: the supply is exactly these instances.
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'race', { maxSize: INSTANCE_COUNT, warmSpares: INSTANCE_COUNT }),
    );
    await fillPool(ns.api, ns.name, 'race', INSTANCE_COUNT);

    managers.push(await world.startOperator(), await world.startOperator());
    const leaseNames = Array.from(
      { length: LEASE_COUNT },
      (_, i) => `job-${String(i).padStart(3, '0')}`,
    );
    await inBatches(leaseNames, 25, (name) => ns.api.create(LEASES, lease(ns.name, name, 'race')));

    const settled = await waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      timeoutMs: 180_000,
      description: `${INSTANCE_COUNT} leases Bound and the rest queued at positions 1..${LEASE_COUNT - INSTANCE_COUNT}`,
      until: (items) => {
        const bound = items.filter((l) => l.status?.phase === 'Bound').length;
        const positions = new Set(
          items.filter((l) => l.status?.phase === 'Pending').map((l) => l.status?.queuePosition),
        );
        return (
          bound === INSTANCE_COUNT &&
          positions.size === LEASE_COUNT - INSTANCE_COUNT &&
          !positions.has(undefined) &&
          Math.max(...(positions as Set<number>)) === LEASE_COUNT - INSTANCE_COUNT
        );
      },
    });

    const bound = settled.filter((l) => l.status?.phase === 'Bound');
    const boundInstances = bound.map((l) => l.status!.instanceRef!.name!);
    expect(new Set(boundInstances).size).toBe(INSTANCE_COUNT);
    // The instance side agrees: every instance is claimed by exactly the lease bound to it.
    const instances = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
    const boundBy = new Map(bound.map((l) => [l.status!.instanceRef!.name!, l]));
    for (const instance of instances.items) {
      const holder = boundBy.get(instance.metadata!.name!);
      expect({ instance: instance.metadata!.name, claim: instance.status?.leaseRef }).toEqual({
        instance: instance.metadata!.name,
        claim: { name: holder?.metadata!.name, uid: holder?.metadata!.uid },
      });
    }
    // First come, first served: the leases created first are the ones bound.
    const byCreation = [...settled].sort(
      (a, b) =>
        a.metadata!.creationTimestamp!.localeCompare(b.metadata!.creationTimestamp!) ||
        a.metadata!.name!.localeCompare(b.metadata!.name!),
    );
    const lastBound = Math.max(...bound.map((l) => byCreation.indexOf(l)));
    const firstWaiting = Math.min(
      ...settled.filter((l) => l.status?.phase === 'Pending').map((l) => byCreation.indexOf(l)),
    );
    expect(lastBound).toBeLessThan(firstWaiting);
  });
});
