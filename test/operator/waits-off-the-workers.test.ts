import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { apiRouteName } from '../../operator/controllers/clusterinstance/hcp/hcp-naming.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { FINALIZER_INSTANCE_CLEANUP } from '../../operator/api/labels.js';
import { useWorld } from '../support/world.js';
import { testConfig } from '../support/test-config.js';
import {
  hcpPool,
  instancesTornDown,
  lease,
  poolInstance,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import { conditionOf, waitForInstance, waitForLease } from '../support/fixtures/instance-waits.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';

/*
 * Waits off the workers (docs/reference/naming.md#waits-off-the-workers): with one instance
 * worker, a guest whose API takes the connection and never answers holds up neither another
 * instance's pass nor a lease's binding, while its own check is still waiting on the guest. And
 * the manager runs each controller with the workers --workers gives it, as its gauge shows.
 */

const world = useWorld({ namespace: 'workers', enabled: true, platform: { hcp: true } });
const { ns } = world;
const HELD_WITHIN_MS = 60_000;

const ready = (i: ClusterInstance | undefined): boolean => i?.status?.phase === 'Ready';

/** The gauge as /metrics serves it: the metrics endpoint is the manager's second. */
async function maxConcurrentReconciles(manager: Manager): Promise<Record<string, number>> {
  const port = manager.endpointPorts[1];
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const found: Record<string, number> = {};
  for (const match of text.matchAll(
    /^guestcluster_controller_max_concurrent_reconciles\{controller="([a-z]+)"\} (\d+)$/gm,
  ))
    found[match[1]!] = Number(match[2]);
  return found;
}

describe('waits off the workers', () => {
  let manager: Manager;
  beforeAll(async () => {
    await createPullSecret(ns.api, ns.name);
    manager = await world.startOperator({
      config: { workers: { ...testConfig().workers, clusterinstance: 1, clusterlease: 3 } },
    });
  });
  afterAll(async () => {
    world.platform.hungGuests.clear();
    world.platform.router.held.release();
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await ns.api.delete(INSTANCES, 'solo', ns.name).catch(() => undefined);
    await instancesTornDown(ns.kubeConfig, ns.name);
  });

  it('runs each controller with the workers it was given', async () => {
    expect(await maxConcurrentReconciles(manager)).toEqual({
      clusterpool: 2,
      clusterlease: 3,
      clusterinstance: 1,
      guesthealth: 2,
    });
  });

  it('reconciles other instances and binds leases while a guest that never answers is checked', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'other', { maxSize: 1, warmSpares: 1 }));
    await waitForInstance(ns, 'other-0', ready, 'Ready');

    // hung-0's guest takes the check's connection and never answers.
    world.platform.hungGuests.add('hung-0');
    const checking = world.platform.router.held.next(apiRouteName('hung-0'), HELD_WITHIN_MS);
    await ns.api.create(POOLS, hcpPool(ns.name, 'hung', { maxSize: 1, warmSpares: 1 }));
    const held = await checking;

    // Meanwhile a lease binds, and an instance made now is reconciled by the one worker.
    await ns.api.create(LEASES, lease(ns.name, 'job', 'other'));
    const solo = poolInstance(ns.name, 'none', 'solo');
    delete solo.spec.poolRef;
    delete solo.metadata!.labels;
    await ns.api.create(INSTANCES, solo);
    const bound = await waitForLease(ns, 'job', (l) => l?.status?.phase === 'Bound', 'Bound');
    expect(bound.status!.instanceRef!.name).toBe('other-0');
    const placed = await waitForInstance(
      ns,
      'solo',
      (i) => !!i?.status?.hyperShift?.hostedClusterName,
      'its HostedCluster placement recorded',
    );
    expect(placed.metadata!.finalizers).toContain(FINALIZER_INSTANCE_CLEANUP);
    // All of it while hung-0's check was still waiting on its guest.
    expect(held.open).toBe(true);

    const hung = await waitForInstance(
      ns,
      'hung-0',
      (i) => conditionOf(i, 'Ready')?.reason === 'APIEndpointUnavailable',
      'waiting for its API endpoint',
    );
    expect(hung.status!.phase).toBe('Provisioning');
    // The check under way, or the guest's silence once the check gave up.
    expect(conditionOf(hung, 'Ready')!.message).toMatch(
      /^waiting for external HCP API endpoint https:\/\/api-hung-0-[0-9a-f]+\..*: (the readiness check is under way|Connect Timeout Error .*)$/,
    );
  });
});
