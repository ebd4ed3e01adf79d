import type { ClusterInstance, ClusterLease } from '../../api/resources.js';
import { INSTANCES } from '../../api/resources.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import type { BoundInstance } from './lease-health.js';
import { NOT_READY_GRACE_MS, boundInstance, notReadyMessage } from './lease-health.js';
import { ensureLeaseAccess } from './lease-access.js';
import { LeaseSecrets } from './lease-kubeconfig.js';
import type { LeaseStatus } from './lease-status.js';
import { LeaseReason, leaseConditions, writeLeaseStatus } from './lease-status.js';
import { enforceTtl, expiresAt } from './lease-ttl.js';

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

  constructor(private readonly manager: Manager) {
    this.secrets = new LeaseSecrets(manager);
  }

  async pass(lease: ClusterLease, context: ReconcileContext): Promise<ReconcileResult> {
    await this.releaseStaleClaims(lease, context);
    if (lease.status?.phase === 'Lost') return this.afterwards(lease, lease.status);
    const bound = await boundInstance(this.manager, lease);
    if (bound.state === 'lost') return this.lose(lease, bound.message, context);
    await ensureLeaseAccess(this.manager, lease);
    if (bound.state === 'ready' || bound.instance.status?.kubeconfigSecretRef)
      await this.secrets.verify(lease, bound.instance, context);
    const status = this.healthStatus(lease, bound);
    const written = await this.afterwards(lease, status);
    if (bound.state === 'not-ready' && !bound.lasting) {
      const dueIn = bound.since + NOT_READY_GRACE_MS - this.manager.clock.now();
      written.requeueAfterMs = Math.min(written.requeueAfterMs ?? Infinity, Math.max(1, dueIn));
    }
    return written;
  }

  /** Writes the status (with expiresAt as it must be now), then enforces the TTL. */
  private async afterwards(lease: ClusterLease, status: LeaseStatus): Promise<ReconcileResult> {
    const next: LeaseStatus = { ...status, instanceRef: { ...status.instanceRef } };
    const expiry = expiresAt({ ...lease, status: next });
    if (expiry) next.expiresAt = expiry;
    else delete next.expiresAt;
    next.observedGeneration = lease.metadata?.generation;
    const written = await writeLeaseStatus(this.manager, lease, next);
    return enforceTtl(this.manager, written);
  }

  /** Bound (and Ready) or NotReady, from how the bound instance stands. */
  private healthStatus(lease: ClusterLease, bound: BoundInstance): LeaseStatus {
    const status = lease.status!;
    const now = this.manager.clock.now();
    if (bound.state === 'lost') return status;
    const instanceRef = { ...status.instanceRef, uid: bound.instance.metadata!.uid };
    const name = bound.instance.metadata!.name!;
    const boundCondition = {
      status: 'True' as const,
      reason: LeaseReason.InstanceBound,
      message: `bound to ClusterInstance "${name}"`,
    };
    if (bound.state === 'not-ready' && bound.lasting) {
      const message = notReadyMessage(bound.instance, bound.since);
      if (status.phase !== 'NotReady') this.announce(lease, 'Warning', 'InstanceNotReady', message);
      return {
        ...status,
        phase: 'NotReady',
        instanceRef,
        conditions: leaseConditions(lease, now, boundCondition, {
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
      this.announce(lease, 'Normal', 'InstanceReady', `ClusterInstance ${name} is Ready again`);
    return {
      ...status,
      phase: 'Bound',
      instanceRef,
      conditions: leaseConditions(lease, now, boundCondition),
    };
  }

  /** Phase Lost for good: conditions, a Warning Event, and the copied credentials deleted. */
  private async lose(
    lease: ClusterLease,
    message: string,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const now = this.manager.clock.now();
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
      LeaseReason.InstanceLost,
      `${message}; the lease will not bind again, delete it`,
    );
    return result;
  }

  /** Releases claims of this lease on instances other than the one it is bound to (a race lost). */
  private async releaseStaleClaims(lease: ClusterLease, context: ReconcileContext): Promise<void> {
    const { namespace, uid } = lease.metadata!;
    const ref = lease.status?.instanceRef;
    const stale = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) =>
          i.metadata!.namespace === namespace &&
          i.status?.leaseRef?.uid === uid &&
          (i.metadata!.name !== ref?.name || (!!ref?.uid && i.metadata!.uid !== ref.uid)),
      );
    for (const instance of stale) {
      const status = { ...instance.status };
      delete status.leaseRef;
      // With the instance's resourceVersion: a claim that changed meanwhile is looked at again.
      await this.manager.client.updateStatus(INSTANCES, { ...instance, status });
      context.logger.info(
        { instance: instance.metadata!.name },
        'Released stale claim on ClusterInstance',
      );
    }
  }

  private announce(
    lease: ClusterLease,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void {
    void this.manager.events.record(lease, type, reason, message);
  }
}
