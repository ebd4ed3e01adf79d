import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { Informer } from '../../runtime/informer.js';
import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import { isPendingLease } from '../clusterpool/pool-accounting.js';
import { LeaseBinder } from './lease-binding.js';
import { BoundLeases } from './lease-bound.js';
import { deleteOrphanedClaims, releaseLease } from './lease-release.js';
import { LeaseReason } from './lease-status.js';
import { deleteLease } from './lease-ttl.js';

const leaseKey = (namespace: string | undefined, name: string): string => `${namespace}/${name}`;

/**
 * The ClusterLease controller (spec §2.2 and DESIGN items 2–3): binds pending leases
 * (lease-binding.ts), keeps bound ones truthful about their cluster (lease-bound.ts) and
 * releases what a deleted lease holds (lease-release.ts).
 */
export class LeaseController {
  private readonly binder: LeaseBinder;
  private readonly bound: BoundLeases;

  constructor(private readonly manager: Manager) {
    this.binder = new LeaseBinder(manager);
    this.bound = new BoundLeases(manager);
  }

  registration(): ControllerRegistration {
    const leases = this.manager.informer<ClusterLease>(LEASES);
    const keys = (found: ClusterLease[]): string[] =>
      found.map((l) => leaseKey(l.metadata!.namespace, l.metadata!.name!));
    const inNamespace = (namespace: string | undefined, also: (l: ClusterLease) => boolean) =>
      keys(leases.list((l) => l.metadata!.namespace === namespace && also(l)));
    const waitingInPool = (namespace: string | undefined, pool: string | undefined): string[] =>
      inNamespace(namespace, (l) => l.spec.poolRef.name === pool && isPendingLease(l));
    const boundTo = boundIndex(leases);
    return {
      name: 'clusterlease',
      forType: LEASES,
      owns: [SECRETS],
      watches: [
        {
          type: INSTANCES,
          mapChange: (previous, current) =>
            instanceChangeKeys(
              previous as ClusterInstance | undefined,
              current as ClusterInstance | undefined,
              waitingInPool,
              (namespace, name) => [...(boundTo.get(leaseKey(namespace, name)) ?? [])],
            ),
        },
        // A lease that leaves the queue without binding (deleted or failed while waiting) moves
        // the ones behind it; joining the queue (at its end) or binding moves no one.
        {
          type: LEASES,
          mapChange: (previous, current) => {
            const left =
              previous &&
              isPendingLease(previous as ClusterLease) &&
              (!current || !isPendingLease(current as ClusterLease));
            const bound = (current as ClusterLease | undefined)?.status?.phase === 'Bound';
            const lease = (current ?? previous) as ClusterLease;
            return left && !bound
              ? waitingInPool(lease.metadata!.namespace, lease.spec.poolRef.name)
              : [];
          },
        },
        // A pool that appears (applied after its leases) or starts or stops being deleted.
        {
          type: POOLS,
          mapChange: (previous, current) => {
            const pool = (current ?? previous) as ClusterPool;
            if (previous && current && !!deleting(previous) === !!deleting(current)) return [];
            return waitingInPool(pool.metadata!.namespace, pool.metadata!.name);
          },
        },
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const lease = this.manager.informer<ClusterLease>(LEASES).get(key);
    if (this.binder.cacheBehindOwnWrites(key, lease)) return {};
    if (!lease) return deleteOrphanedClaims(this.manager, key, context);
    if (lease.metadata?.deletionTimestamp) return releaseLease(this.manager, lease, context);
    switch (lease.status?.phase ?? '') {
      case 'Bound':
      case 'NotReady':
      case 'Lost':
        return this.bound.pass(await this.binder.withFinalizer(lease), context);
      case 'Releasing':
        await deleteLease(this.manager, lease);
        return {};
      case 'Released':
        return {};
      case 'Failed':
        // Earlier versions failed a lease whose pool was missing; now it waits for the pool.
        return failedFor(lease, LeaseReason.PoolNotFound)
          ? this.binder.matchmake(lease, context)
          : {};
      default:
        // matchmake adds the finalizer itself: on the bind path, right after the binding.
        return this.binder.matchmake(lease, context);
    }
  }
}

const deleting = (object: KubeObject): boolean => !!object.metadata?.deletionTimestamp;

/**
 * The keys of the leases bound to each instance name ("namespace/instance"), kept up to date
 * from the lease cache: instance events look their leases up here rather than scanning every
 * lease (ten thousand instance adds at start-up against ten thousand leases would be 10^8 checks).
 */
function boundIndex(leases: Informer<ClusterLease>): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  const entry = (lease: ClusterLease): [string, string] | undefined => {
    const instance = lease.status?.instanceRef?.name;
    const { namespace, name } = lease.metadata!;
    return instance ? [leaseKey(namespace, instance), leaseKey(namespace, name!)] : undefined;
  };
  const remove = (lease: ClusterLease): void => {
    const [instance, key] = entry(lease) ?? [];
    if (!instance) return;
    index.get(instance)?.delete(key!);
    if (index.get(instance)?.size === 0) index.delete(instance);
  };
  const add = (lease: ClusterLease): void => {
    const [instance, key] = entry(lease) ?? [];
    if (instance) index.set(instance, (index.get(instance) ?? new Set()).add(key!));
  };
  leases.addHandlers({
    onAdd: add,
    onUpdate: (previous, current) => (remove(previous), add(current)),
    onDelete: remove,
  });
  return index;
}

const failedFor = (lease: ClusterLease, reason: string): boolean =>
  findCondition(lease.status?.conditions, 'Ready')?.reason === reason;

/**
 * The leases an instance change concerns. Its claimant (before and after) and the leases bound to
 * its name always hear of it: that is how a bound lease learns that its instance went, is being
 * deleted, or was replaced. Waiting leases only when the instance becomes available, or stops
 * being available other than by a claim (a claimed instance leaves together with its lease, which
 * moves no one else).
 */
function instanceChangeKeys(
  previous: ClusterInstance | undefined,
  current: ClusterInstance | undefined,
  waitingInPool: (namespace: string | undefined, pool: string | undefined) => string[],
  boundTo: (namespace: string | undefined, name: string) => string[],
): string[] {
  const instance = (current ?? previous)!;
  const namespace = instance.metadata!.namespace;
  const claimants = [previous, current]
    .map((i) => i?.status?.leaseRef?.name)
    .filter((name): name is string => !!name)
    .map((name) => leaseKey(namespace, name));
  const replaced =
    !previous || !current || previous.metadata?.uid !== current.metadata?.uid
      ? boundTo(namespace, instance.metadata!.name!)
      : [];
  const wasAvailable = isAvailable(previous);
  const nowAvailable = isAvailable(current);
  const leftUnclaimed = wasAvailable && !nowAvailable && !current?.status?.leaseRef;
  const waiting =
    (!wasAvailable && nowAvailable) || leftUnclaimed
      ? waitingInPool(namespace, instance.spec.poolRef?.name)
      : [];
  return [...new Set([...claimants, ...replaced, ...waiting])];
}

/** Ready, not deleting and not claimed through its own status (lease records are checked on binding). */
function isAvailable(instance: ClusterInstance | undefined): boolean {
  return (
    !!instance &&
    !instance.metadata?.deletionTimestamp &&
    instance.status?.phase === 'Ready' &&
    !instance.status.leaseRef
  );
}
