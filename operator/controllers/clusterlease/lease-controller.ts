import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { objectKey, splitKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { LeaseTimings } from '../../timings.js';
import type { Lease } from '../binding/binding-model.js';
import { claimOf, isPendingLease, legacyPhase, looksAvailable } from '../binding/binding-model.js';
import { poolOffer } from '../binding/pool-offer.js';
import { LeaseBinder } from './lease-binding.js';
import { limitsChanged } from '../binding/lease-limits.js';
import type { LeaseMetrics } from './lease-metrics.js';
import { BoundLeases } from './lease-bound.js';
import { deleteOrphanedClaims, releaseLease } from './lease-release.js';
import { LeaseReason } from './lease-status.js';
import { deleteLease } from './lease-ttl.js';

/** What the lease controller takes from the operator's configuration. */
export interface LeaseSettings {
  timings: LeaseTimings;
  /** Where binds are recorded (guestcluster_lease_wait_seconds); none when unset. */
  metrics?: LeaseMetrics;
}

const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * The ClusterLease controller (docs/reference/kinds.md#binding, ADR 0006): binds pending
 * leases (lease-binding.ts), keeps bound ones truthful about their cluster (lease-bound.ts) and
 * releases what a deleted lease holds (lease-release.ts).
 */
export class LeaseController {
  private readonly binder: LeaseBinder;
  private readonly bound: BoundLeases;

  constructor(
    private readonly ports: ControllerPorts,
    settings: LeaseSettings,
  ) {
    this.binder = new LeaseBinder(ports, settings.timings, settings.metrics);
    this.bound = new BoundLeases(ports, settings.timings);
  }

  registration(): ControllerRegistration {
    const { cache } = this.ports;
    const leases = cache.view<ClusterLease>(LEASES);
    const waitingInPool = (namespace: string, pool: string | undefined): string[] =>
      leases
        .list(namespace, (l) => l.spec.poolRef.name === pool && isPendingLease(l))
        .map(objectKey);
    // Instance events look their leases up here rather than scanning every lease (ten thousand
    // instance adds at start-up against ten thousand leases would be 10^8 checks).
    const boundTo = cache.indexBy<ClusterLease>(LEASES, (lease) => {
      const instance = lease.status?.instanceRef?.name;
      return instance ? [key(lease.metadata.namespace, instance)] : [];
    });
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
              (namespace, name) => boundTo.get(key(namespace, name)).map(objectKey),
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
              ? waitingInPool(lease.metadata?.namespace ?? '', lease.spec.poolRef.name)
              : [];
          },
        },
        // A pool that appears (applied after its leases), starts or stops being deleted,
        // changes the version it offers (leases waiting for a version) or its limits.
        {
          type: POOLS,
          mapChange: (previous, current) => {
            const pool = (current ?? previous) as ClusterPool;
            const namespace = pool.metadata?.namespace ?? '';
            // New limits also decide whether a bound lease's refused TTL change is taken now.
            if (previous && current && limitsChanged(previous as ClusterPool, pool))
              return leases
                .list(namespace, (l) => l.spec.poolRef.name === pool.metadata?.name)
                .map(objectKey);
            if (previous && current && !poolMoved(previous, current)) return [];
            return waitingInPool(namespace, pool.metadata?.name);
          },
        },
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const { namespace = '', name } = splitKey(key);
    const lease = (await this.ports.cache.read<ClusterLease>(LEASES)).get(name, namespace);
    if (this.binder.cacheBehindOwnWrites(key, lease)) return {};
    if (!lease) return deleteOrphanedClaims(this.ports, key, context);
    if (lease.metadata.deletionTimestamp) return releaseLease(this.ports, lease, context);
    // Phases of earlier versions: Releasing meant "delete this lease", Released "done".
    const legacy = legacyPhase(lease);
    if (legacy === 'Releasing') await deleteLease(this.ports.client, lease);
    if (legacy) return {};
    switch (lease.status?.phase ?? '') {
      case 'Bound':
      case 'NotReady':
      case 'Lost':
        return this.bound.pass(await this.binder.ensureFinalizer(lease), context);
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

/** Whether a pool changed in a way its waiting leases must hear of. */
function poolMoved(previous: KubeObject, current: KubeObject): boolean {
  if (deleting(previous) !== deleting(current)) return true;
  const [before, after] = [previous, current].map((p) => poolOffer(p as ClusterPool));
  return before!.version !== after!.version || before!.stream !== after!.stream;
}

const failedFor = (lease: Lease, reason: string): boolean =>
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
  waitingInPool: (namespace: string, pool: string | undefined) => string[],
  boundTo: (namespace: string, name: string) => string[],
): string[] {
  const instance = (current ?? previous) as ClusterInstance;
  const namespace = instance.metadata?.namespace ?? '';
  const name = instance.metadata?.name ?? '';
  const claimants = [previous, current]
    .map((i) => i?.status?.leaseRef?.name)
    .filter((lease): lease is string => !!lease)
    .map((lease) => key(namespace, lease));
  const replaced = isReplacement(previous, current) ? boundTo(namespace, name) : [];
  const waiting = availabilityChanged(previous, current)
    ? waitingInPool(namespace, instance.spec.poolRef?.name)
    : [];
  return [...new Set([...claimants, ...replaced, ...waiting])];
}

/** An add, a delete, or another object under the name: what leases bound to the name must hear. */
function isReplacement(previous?: ClusterInstance, current?: ClusterInstance): boolean {
  return !previous || !current || previous.metadata?.uid !== current.metadata?.uid;
}

/**
 * It became available, stopped being available other than by a claim, or is available and had
 * its readiness gates checked again (the hand-out gate may let it out now).
 */
function availabilityChanged(previous?: ClusterInstance, current?: ClusterInstance): boolean {
  const was = looksAvailable(previous);
  const now = looksAvailable(current);
  const rechecked = was && now && healthStamp(previous) !== healthStamp(current);
  return (
    (!was && now) ||
    (was && !now && !(current && claimOf(current))) ||
    rechecked ||
    justHibernated(previous, current)
  );
}

/** A spare that just hibernated: one a waiting lease may resume. */
function justHibernated(previous?: ClusterInstance, current?: ClusterInstance): boolean {
  return (
    current?.status?.phase === 'Hibernated' &&
    previous?.status?.phase !== 'Hibernated' &&
    !claimOf(current)
  );
}

/** The last check of the readiness gates, as the hand-out gate reads it. */
function healthStamp(instance?: ClusterInstance): string {
  const healthy = instance?.status?.conditions?.find((c) => c.type === 'GuestHealthy');
  return `${healthy?.status}/${instance?.status?.guestHealth?.checkedAt}`;
}
