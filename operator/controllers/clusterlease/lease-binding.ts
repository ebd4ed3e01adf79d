import { FINALIZER_LEASE_RELEASE, LABEL_POOL } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../api/resources.js';
import { isConflict, isNotFound } from '../../kube/api-error.js';
import { objectKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { namespacePolicy } from '../namespace-policy.js';
import { ensureLeaseAccess } from './lease-access.js';
import { LeaseSecrets, leaseSecretName } from './lease-kubeconfig.js';
import { placeLease } from './lease-queue.js';
import type { LeaseStatus } from './lease-status.js';
import {
  LeaseReason,
  failLease,
  isoSeconds,
  leaseConditions,
  pendingStatus,
  writeLeaseStatus,
} from './lease-status.js';
import { enforceTtl, expiresAt, leaseTtl } from './lease-ttl.js';

const TERMINATING_RECHECK_MS = 10_000;
/** A slow safety pass for waiting leases; every change that can free capacity is an event already. */
const WAITING_RESYNC_MS = 5 * 60_000;
const CLAIM_CONFLICT_RETRY_MS = 50;

/**
 * Binds pending leases (ADR 0006): a compare-and-swap claim on the instance (status.leaseRef,
 * written with the instance's resourceVersion), then the lease's status.instanceRef; a claim
 * whose lease ended up elsewhere is released by the bound lease. So an instance is never given
 * to two leases, however many managers run and however stale their caches are.
 */
export class LeaseBinder {
  /**
   * Versions of leases that this controller's own writes have superseded (binding writes the
   * status, then the finalizer), by key, until the cache shows a version past them. A pass on one
   * of them would only repeat those writes and conflict; the newer version's event brings the key
   * back.
   */
  private readonly superseded = new Map<string, Set<string>>();
  private readonly secrets: LeaseSecrets;

  constructor(private readonly manager: Manager) {
    this.secrets = new LeaseSecrets(manager);
  }

  /** True while the cache still shows a version of the lease that this controller wrote past. */
  cacheBehindOwnWrites(key: string, lease: ClusterLease | undefined): boolean {
    const versions = this.superseded.get(key);
    if (!versions) return false;
    if (lease && versions.has(lease.metadata!.resourceVersion!)) return true;
    this.superseded.delete(key);
    return false;
  }

  /**
   * The release finalizer, so that whatever this lease claims is released with it. The pass goes
   * on with the returned object rather than waiting for its watch event.
   */
  async withFinalizer(lease: ClusterLease): Promise<ClusterLease> {
    if (lease.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE)) return lease;
    const finalizers = [...(lease.metadata?.finalizers ?? []), FINALIZER_LEASE_RELEASE];
    return this.manager.client.update(LEASES, {
      ...lease,
      metadata: { ...lease.metadata, finalizers },
    });
  }

  async matchmake(lease: ClusterLease, context: ReconcileContext): Promise<ReconcileResult> {
    const namespace = lease.metadata!.namespace!;
    const ttl = leaseTtl(lease);
    if ('invalid' in ttl) {
      await failLease(
        this.manager,
        await this.withFinalizer(lease),
        LeaseReason.InvalidSpec,
        ttl.invalid,
      );
      return {};
    }
    const waiting = await this.poolHold(lease);
    if (waiting) {
      await this.wait(lease, waiting.reason, waiting.message);
      return { requeueAfterMs: WAITING_RESYNC_MS };
    }
    const taken = this.secrets.foreignOwner(lease);
    if (taken) {
      await failLease(
        this.manager,
        await this.withFinalizer(lease),
        LeaseReason.KubeconfigSecretConflict,
        taken,
      );
      return {};
    }
    const policy = await namespacePolicy(this.manager, namespace);
    if (policy.terminating) {
      await this.wait(lease, policy.reason, policy.message);
      return { requeueAfterMs: TERMINATING_RECHECK_MS };
    }
    const poolName = lease.spec.poolRef.name;
    const instances = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) => i.metadata!.namespace === namespace && i.metadata?.labels?.[LABEL_POOL] === poolName,
      );
    // A claim of ours from an earlier pass (or another manager) that the lease has not recorded yet.
    const claimed = instances.find(
      (i) => i.status?.leaseRef?.uid === lease.metadata!.uid && !i.metadata?.deletionTimestamp,
    );
    if (claimed?.status?.phase === 'Ready') return this.finishBind(lease, claimed, false, context);

    const leases = this.manager
      .informer<ClusterLease>(LEASES)
      .list((l) => l.metadata!.namespace === namespace);
    const placement = placeLease(lease, leases, instances);
    if ('queuePosition' in placement) {
      const message = `no Ready, unclaimed ClusterInstance in pool "${poolName}"; waiting for ClusterPool controller to provision one`;
      await this.wait(lease, LeaseReason.WaitingForCapacity, message, placement.queuePosition);
      return { requeueAfterMs: WAITING_RESYNC_MS };
    }
    const instance = placement.instance;
    // The claim and the Secret copy do not depend on each other: send them together. The copy is
    // only created here, never rewritten: an existing one is set right once the claim is won.
    const [claim, copied] = await Promise.all([
      this.claim(lease, instance),
      this.secrets.createFor(lease, instance),
    ]);
    if (!claim) return { requeueAfterMs: CLAIM_CONFLICT_RETRY_MS };
    context.logger.debug({ instance: instance.metadata!.name }, 'Claimed ClusterInstance');
    return this.finishBind(lease, claim, copied, context);
  }

  /**
   * With the claim won: makes the Secret copy hold the claimed instance's kubeconfig, then
   * records the binding. When the copy was not just created, the lease is read live first: if it
   * is bound already (this cache is behind another manager's bind), the copy is left to the bound
   * lease, and this claim is released by it as a race lost.
   */
  private async finishBind(
    lease: ClusterLease,
    instance: ClusterInstance,
    copied: boolean,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if (!copied) {
      const live = await this.manager.client
        .get<ClusterLease>(LEASES, lease.metadata!.name!, lease.metadata!.namespace)
        .catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });
      if (!live || live.metadata?.uid !== lease.metadata!.uid || live.status?.instanceRef?.name)
        return {};
      await this.secrets.writeFor(lease, instance);
    }
    await ensureLeaseAccess(this.manager, lease);
    return this.recordBinding(lease, instance, context);
  }

  /** Why the lease waits on its pool (it does not exist, or it is being deleted), if it does. */
  private async poolHold(
    lease: ClusterLease,
  ): Promise<{ reason: string; message: string } | undefined> {
    const namespace = lease.metadata!.namespace!;
    const name = lease.spec.poolRef.name;
    const pool = await this.readPool(namespace, name);
    if (!pool)
      return {
        reason: LeaseReason.PoolNotFound,
        message: `ClusterPool "${name}" does not exist in namespace "${namespace}"; the lease binds once it does`,
      };
    if (pool.metadata?.deletionTimestamp)
      return {
        reason: LeaseReason.PoolDeleting,
        message: `ClusterPool "${name}" is being deleted; the lease binds once a pool of that name exists again`,
      };
    return undefined;
  }

  private async readPool(namespace: string, name: string): Promise<ClusterPool | undefined> {
    const cached = this.manager.informer<ClusterPool>(POOLS).get(`${namespace}/${name}`);
    if (cached) return cached;
    try {
      // The cache may lag behind a pool created just before the lease.
      return await this.manager.client.get<ClusterPool>(POOLS, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async wait(
    lease: ClusterLease,
    reason: string,
    message: string,
    queuePosition?: number,
  ): Promise<void> {
    const finalized = await this.withFinalizer(lease);
    const now = this.manager.clock.now();
    await writeLeaseStatus(
      this.manager,
      finalized,
      pendingStatus(finalized, now, reason, message, queuePosition),
    );
  }

  /** The compare-and-swap claim on the instance; undefined when someone changed it first. */
  private async claim(
    lease: ClusterLease,
    instance: ClusterInstance,
  ): Promise<ClusterInstance | undefined> {
    try {
      return await this.manager.client.updateStatus(INSTANCES, {
        ...instance,
        status: {
          ...instance.status,
          leaseRef: { name: lease.metadata!.name!, uid: lease.metadata!.uid! },
        },
      });
    } catch (error) {
      if (isConflict(error)) return undefined;
      throw error;
    }
  }

  /**
   * Records the binding on the lease, the record that CI and kubectl read, and then adds the
   * release finalizer. Only the claim and the Secret have to come before Bound; the finalizer
   * after it keeps one write off the wait. A lease deleted in between leaves an orphaned claim,
   * which deleteOrphanedClaims removes.
   */
  private async recordBinding(
    lease: ClusterLease,
    instance: ClusterInstance,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const now = this.manager.clock.now();
    const name = instance.metadata!.name!;
    const status: LeaseStatus = {
      ...lease.status,
      phase: 'Bound',
      instanceRef: { name, uid: instance.metadata!.uid },
      kubeconfigSecretRef: { name: leaseSecretName(lease) },
      ocpVersion: instance.status?.ocpVersion,
      topology: instance.status?.topology,
      apiEndpoint: instance.status?.apiEndpoint,
      boundTime: isoSeconds(now),
      observedGeneration: lease.metadata?.generation,
      conditions: leaseConditions(lease, now, {
        status: 'True',
        reason: LeaseReason.InstanceBound,
        message: `bound to ClusterInstance "${name}"`,
      }),
    };
    delete status.queuePosition;
    const expiry = expiresAt({ ...lease, status });
    if (expiry) status.expiresAt = expiry;
    else delete status.expiresAt;
    const bound = await this.manager.client.updateStatus(LEASES, { ...lease, status });
    context.logger.info({ instance: name }, 'Bound ClusterLease to ClusterInstance');
    void this.manager.events.record(bound, 'Normal', 'Bound', `Bound to ClusterInstance ${name}`);
    // A lease deleted or changed since the binding fails this write; its watch event brings the
    // next pass, which adds the finalizer or removes the orphaned claim.
    const finalized = await this.withFinalizer(bound).catch((error: unknown) => {
      if (isNotFound(error) || isConflict(error)) return undefined;
      throw error;
    });
    const outdated = [lease, ...(finalized && finalized !== bound ? [bound] : [])];
    this.superseded.set(
      objectKey(bound),
      new Set(outdated.map((version) => version.metadata!.resourceVersion!)),
    );
    return finalized ? enforceTtl(this.manager, finalized) : {};
  }
}
