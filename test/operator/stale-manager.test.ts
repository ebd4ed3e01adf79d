import { afterAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import { isConflict } from '../../client/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { ApiProxy } from '../support/api-proxy.js';
import { inBatches } from '../support/batches.js';
import { useWorld } from '../support/world.js';
import type { State } from '../support/wait-for-state.js';
import { waitForState } from '../support/wait-for-state.js';
import {
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';

const world = useWorld({ namespace: 'stale', enabled: true });
const { ns } = world;
const INSTANCE_COUNT = 40;
const LEASE_COUNT = 30;
const WATCH_DELAY_MS = 700;
/** Stands in for the instance controller's cleanup finalizer: a deleted instance stays visible. */
const HOLD = 'test.opdev.io/hold';

type Secret = KubeObject & { data?: Record<string, string> };

/** The server of the kubeconfig a Secret holds. */
function serverOf(secret: Secret | undefined): string | undefined {
  const text = secret?.data?.kubeconfig;
  if (!text) return undefined;
  const config = parse(Buffer.from(text, 'base64').toString()) as {
    clusters?: { cluster?: { server?: string } }[];
  };
  return config.clusters?.[0]?.cluster?.server;
}

/** What is wrong with a Bound lease: its instance must carry its claim, and its Secret reach it. */
function leaseViolations(
  lease: ClusterLease,
  instances: Map<string, ClusterInstance>,
  secrets: Map<string, Secret>,
): string[] {
  const name = lease.metadata!.name!;
  const instance = instances.get(lease.status!.instanceRef!.name!);
  if (!instance) return [`${name} is Bound to missing ${lease.status!.instanceRef!.name}`];
  const found: string[] = [];
  if (instance.status?.leaseRef?.uid !== lease.metadata!.uid)
    found.push(
      `${name}'s instance ${instance.metadata!.name} is claimed by ${instance.status?.leaseRef?.name}`,
    );
  const published = serverOf(secrets.get(instance.status!.kubeconfigSecretRef!.name!));
  const copied = serverOf(secrets.get(`${name}-kubeconfig`));
  if (copied !== published)
    found.push(`${name}'s Secret reaches ${copied}, its instance ${published}`);
  return found;
}

/** What is wrong with a claimed instance: it must not be deleting, and its claimant be bound to it. */
function claimViolations(instance: ClusterInstance, leases: Map<string, ClusterLease>): string[] {
  const claim = instance.status?.leaseRef;
  if (!claim) return [];
  const name = instance.metadata!.name!;
  const found: string[] = [];
  if (instance.metadata?.deletionTimestamp) found.push(`claimed instance ${name} is being deleted`);
  const holder = leases.get(claim.name!);
  if (holder?.metadata?.uid !== claim.uid || holder?.status?.instanceRef?.name !== name)
    found.push(`${name} carries a claim of ${claim.name} that is not its binding`);
  return found;
}

/**
 * What must hold for every lease and instance, whatever the managers did: a Bound lease's Secret
 * reaches its own instance, its instance carries its claim and is not being deleted, and every
 * claim belongs to the lease bound to that instance. Returns what does not hold.
 */
function violations(state: State): string[] {
  const leases = state.clusterleases as ClusterLease[];
  const instances = new Map(
    (state.clusterinstances as ClusterInstance[]).map((i) => [i.metadata!.name!, i]),
  );
  const secrets = new Map((state.secrets as Secret[]).map((s) => [s.metadata!.name!, s]));
  const byName = new Map(leases.map((l) => [l.metadata!.name!, l]));
  return [
    ...leases
      .filter((l) => String(l.status?.phase) === 'Lost')
      .map((l) => `${l.metadata!.name} is Lost`),
    ...leases
      .filter((l) => l.status?.phase === 'Bound')
      .flatMap((l) => leaseViolations(l, instances, secrets)),
    ...[...instances.values()].flatMap((i) => claimViolations(i, byName)),
  ];
}

/** Resolves once the manager's own cache of `type` satisfies `holds`. */
function cacheShows<T extends KubeObject>(
  manager: Manager,
  type: ResourceType,
  holds: (objects: T[]) => boolean,
): Promise<void> {
  const informer = manager.informer<T>(type);
  return new Promise((resolve) => {
    const check = (): void => {
      if (holds(informer.list())) resolve();
    };
    informer.addHandlers({ onAdd: check, onUpdate: check, onDelete: check });
    check();
  });
}

const isBound = (l: ClusterLease): boolean => l.status?.phase === 'Bound';

describe('two managers, one of them watching through a delay, and no leader election', () => {
  const managers: Manager[] = [];
  let proxy: ApiProxy | undefined;
  afterAll(async () => {
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await Promise.all(managers.map((m) => m.stop()));
    await proxy?.stop();
    const left = await ns.api.list<ClusterInstance>(INSTANCES, { namespace: ns.name });
    await inBatches(left.items, 25, (i) =>
      ns.api.patch(
        INSTANCES,
        { name: i.metadata!.name!, namespace: ns.name },
        { metadata: { finalizers: null } },
      ),
    );
  });

  it(`keep every Bound lease true to its instance while ${LEASE_COUNT} leases bind and the pool trims its spares`, async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'stale', { maxSize: INSTANCE_COUNT }));
    const names = Array.from(
      { length: INSTANCE_COUNT },
      (_, i) => `stale-${String(i).padStart(2, '0')}`,
    );
    await inBatches(names, 10, async (name) => {
      const instance = poolInstance(ns.name, 'stale', name);
      instance.metadata!.finalizers = [HOLD];
      await createPoolInstance(ns.api, instance);
    });
    proxy = await ApiProxy.start();
    proxy.watchDelayMs = WATCH_DELAY_MS;
    managers.push(
      await world.startOperator(),
      await world.startOperator({ access: proxy.kubeConfig() }),
    );
    const leaseNames = Array.from(
      { length: LEASE_COUNT },
      (_, i) => `job-${String(i).padStart(2, '0')}`,
    );
    await inBatches(leaseNames, 10, (name) => ns.api.create(LEASES, lease(ns.name, name, 'stale')));

    // The instances become Ready newest first, long idle (the pool may trim the spares among
    // them): the delayed manager matches waiting leases to instances in an order the other one
    // has long moved past, and trims on what it saw a moment ago.
    const longAgo = new Date(Date.now() - 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    for (const name of [...names].reverse()) {
      const ready = await settleInstance(ns.api, ns.name, name);
      const conditions = ready.status!.conditions!.map((c) => ({
        ...c,
        lastTransitionTime: longAgo,
      }));
      await ns.api
        .updateStatus(INSTANCES, { ...ready, status: { ...ready.status, conditions } })
        .catch((error: unknown) => {
          // Claimed meanwhile: the claim wrote past this version, and the instance is leased.
          if (!isConflict(error)) throw error;
        });
    }

    // Both managers' caches have caught up with every binding: nothing stale is left to act on.
    const allBound = (leases: ClusterLease[]): boolean =>
      leases.length === LEASE_COUNT && leases.every(isBound);
    await Promise.all(managers.map((m) => cacheShows<ClusterLease>(m, LEASES, allBound)));
    const state = await waitForState(ns.kubeConfig, {
      namespace: ns.name,
      types: [LEASES, INSTANCES, SECRETS],
      check: (state) => [
        ...(allBound(state.clusterleases as ClusterLease[]) ? [] : ['not every lease is Bound']),
        ...violations(state),
      ],
      timeoutMs: 60_000,
      description: 'every Bound lease to be true to its instance',
    });
    expect(violations(state)).toEqual([]);
    const bound = (state.clusterleases as ClusterLease[]).filter(isBound);
    expect(new Set(bound.map((l) => l.status!.instanceRef!.name)).size).toBe(LEASE_COUNT);
    // Only unclaimed instances were trimmed.
    const deleting = (state.clusterinstances as ClusterInstance[]).filter(
      (i) => i.metadata?.deletionTimestamp,
    );
    expect(deleting.filter((i) => i.status?.leaseRef)).toEqual([]);
  });
});
