import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, POOLS } from '../../../client/api/resources.js';
import { writeClaimReleased } from '../binding/instance-status-writes.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import { sooner } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { LeaseTimings } from '../../timings.js';
import type { Lease } from '../binding/binding-model.js';
import { isClaimedBy } from '../binding/binding-model.js';
import { ensureLeaseAccess } from './lease-access.js';
import type { BoundInstance } from './lease-health.js';
import { boundInstance, notReadyMessage } from './lease-health.js';
import { LeaseSecrets } from './lease-kubeconfig.js';
import type { LeaseStatus } from './lease-status.js';
import {
  LeaseEvent,
  LeaseReason,
  boundTo,
  leaseConditions,
  usableConditions,
  writeLeaseStatus,
} from './lease-status.js';
import type { PoolLimits, Refusal } from '../binding/lease-limits.js';
import { isHeldLabelled, poolLimits } from '../binding/lease-limits.js';
import { acceptedExpiry, ttlAcceptedConditions } from './lease-ttl-change.js';
import { enforceTtl, expiryConditions } from './lease-ttl.js';
import { metaTime } from '../../../client/kube/meta-time.js';

/**
 * A bound lease keeps telling the truth about its cluster. Every pass: claims of this lease on
 * other instances (a race lost) are released; the bound instance is checked (phase Lost when it
 * is gone, being deleted or replaced; NotReady when it has not been Ready for longer than a grace,
 * Bound again once it is); the lease Secret is checked against it and repaired; expiresAt follows
 * spec.ttl; the TTL is enforced. A lost lease never binds again: CI must not be handed another
 * cluster under the same lease.
 */
export class BoundLeases {
  private readonly secrets: LeaseSecrets;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly timings: LeaseTimings,
  ) {
    this.secrets = new LeaseSecrets(ports);
  }

  async pass(lease: Lease, context: ReconcileContext): Promise<ReconcileResult> {
    await this.releaseStaleClaims(lease, context);
    if (lease.status?.phase === 'Lost') return this.afterwards(lease, lease.status);
    const bound = await boundInstance(this.ports, lease, this.timings.notReadyGraceMs);
    if (bound.state === 'lost') return this.lose(lease, bound.message, context);
    await ensureLeaseAccess(this.ports, lease);
    if (bound.state === 'ready' || bound.instance.status?.kubeconfigSecretRef)
      await this.secrets.verify(lease, bound.instance, context);
    const status = this.healthStatus(lease, bound);
    const written = await this.afterwards(lease, status);
    if (bound.state === 'not-ready' && !bound.lasting)
      return sooner(written, { requeueAt: bound.since + this.timings.notReadyGraceMs });
    return written;
  }

  /**
   * Writes the status (with the hold's start and the deadline as they must be now, within the
   * pool's limits), then enforces the TTL.
   */
  private async afterwards(lease: Lease, status: LeaseStatus): Promise<ReconcileResult> {
    const now = this.ports.clock.now();
    const next: LeaseStatus = { ...status, instanceRef: { ...status.instanceRef } };
    if (!next.heldAt && isHeldLabelled(lease)) next.heldAt = metaTime(now);
    const limits = await this.limitsOf(lease);
    const heldAt = next.heldAt ? Date.parse(next.heldAt) : undefined;
    const decision = acceptedExpiry({ ...lease, status: next }, limits, heldAt);
    if (decision.expiresAt) next.expiresAt = decision.expiresAt;
    else delete next.expiresAt;
    next.observedGeneration = lease.metadata.generation;
    next.conditions = ttlAcceptedConditions(lease, next.conditions, decision.refusal, now);
    const conditions = expiryConditions({ ...lease, status: next }, this.timings, now);
    if (conditions) next.conditions = conditions;
    const written = await writeLeaseStatus(this.ports, lease, next);
    this.announceLimits(lease, written, decision.refusal);
    return enforceTtl(this.ports, this.timings, written, lease);
  }

  /** The limits of the lease's pool, from the cache; none when the pool is gone. */
  private async limitsOf(lease: Lease): Promise<PoolLimits | undefined> {
    const pools = await this.ports.cache.read<ClusterPool>(POOLS);
    const pool = pools.get(lease.spec.poolRef.name, lease.metadata.namespace);
    return pool && poolLimits(pool);
  }

  /** An Event when a hold began, and when a TTL change was newly refused. */
  private announceLimits(before: Lease, after: Lease, refusal: Refusal | undefined): void {
    if (!before.status?.heldAt && after.status?.heldAt)
      this.announce(
        after,
        'Normal',
        LeaseEvent.Held,
        `Held since ${after.status.heldAt}${after.status.expiresAt ? `; released at ${after.status.expiresAt}` : ''}`,
      );
    const was = findCondition(before.status?.conditions, 'TTLAccepted');
    if (refusal && (was?.status !== 'False' || was.message !== refusal.message))
      this.announce(after, 'Warning', refusal.reason, refusal.message);
  }

  /** Bound (and Ready) or NotReady, from how the bound instance stands. */
  private healthStatus(lease: Lease, bound: BoundInstance): LeaseStatus {
    const status = lease.status ?? {};
    const now = this.ports.clock.now();
    if (bound.state === 'lost') return status;
    const { name, uid } = bound.instance.metadata;
    const instanceRef = { ...status.instanceRef, uid };
    if (bound.state === 'not-ready' && bound.lasting) {
      const message = notReadyMessage(bound.instance, bound.since);
      if (status.phase !== 'NotReady')
        this.announce(lease, 'Warning', LeaseEvent.InstanceNotReady, message);
      return {
        ...status,
        phase: 'NotReady',
        instanceRef,
        conditions: leaseConditions(lease, now, boundTo(name), {
          status: 'False',
          reason: LeaseReason.InstanceNotReady,
          message,
        }),
      };
    }
    // Not Ready for less than the grace: the lease stays as it was (Bound, or NotReady after a
    // short Ready spell).
    if (bound.state === 'not-ready') return { ...status, instanceRef };
    if (status.phase === 'NotReady')
      this.announce(
        lease,
        'Normal',
        LeaseEvent.InstanceReady,
        `ClusterInstance ${name} is Ready again`,
      );
    return {
      ...status,
      phase: 'Bound',
      instanceRef,
      conditions: usableConditions(lease, now, name),
    };
  }

  /** Phase Lost for good: conditions, a Warning Event, and the copied credentials deleted. */
  private async lose(
    lease: Lease,
    message: string,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const now = this.ports.clock.now();
    const lost = { status: 'False' as const, reason: LeaseReason.InstanceLost, message };
    const status: LeaseStatus = {
      ...lease.status,
      phase: 'Lost',
      conditions: leaseConditions(lease, now, lost),
    };
    delete status.kubeconfigSecretRef;
    await this.secrets.remove(lease);
    const result = await this.afterwards(lease, status);
    context.logger.warn(
      { instance: lease.status?.instanceRef?.name },
      'ClusterLease lost its ClusterInstance',
    );
    this.announce(
      lease,
      'Warning',
      LeaseEvent.InstanceLost,
      `${message}; the lease will not bind again, delete it`,
    );
    return result;
  }

  /** Releases claims of this lease on instances other than the one it is bound to (a race lost). */
  private async releaseStaleClaims(lease: Lease, context: ReconcileContext): Promise<void> {
    const ref = lease.status?.instanceRef;
    const instances = await this.ports.cache.read<ClusterInstance>(INSTANCES);
    const stale = instances.list(
      lease.metadata.namespace,
      (i) =>
        isClaimedBy(i, lease) &&
        (i.metadata.name !== ref?.name || (!!ref.uid && i.metadata.uid !== ref.uid)),
    );
    for (const instance of stale) {
      // With the instance's resourceVersion: a claim that changed meanwhile is looked at again.
      await writeClaimReleased(this.ports.client, instance);
      context.logger.info(
        { instance: instance.metadata.name },
        'Released stale claim on ClusterInstance',
      );
    }
  }

  private announce(
    lease: Lease,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void {
    void this.ports.events.record(lease, type, reason, message);
  }
}
