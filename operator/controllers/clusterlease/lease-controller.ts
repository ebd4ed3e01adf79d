import { setCondition } from '../../api/conditions.js';
import { parseGoDuration } from '../../api/duration.js';
import {
  FINALIZER_LEASE_RELEASE,
  LABEL_MANAGED_BY,
  LABEL_POOL,
  MANAGED_BY_OPERATOR,
} from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../api/resources.js';
import { INSTANCES, LEASES, POOLS, SECRETS } from '../../api/resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../kube/api-error.js';
import type { KubeObject } from '../../kube/objects.js';
import { objectKey, sameContent, splitKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import { namespacePolicy } from '../namespace-policy.js';
import { ensureLeaseAccess } from './lease-access.js';
import { leaseKubeconfigData } from './lease-kubeconfig-source.js';
import { placeLease } from './lease-queue.js';
import { isPendingLease } from '../clusterpool/pool-accounting.js';

type LeaseStatus = NonNullable<ClusterLease['status']>;
interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/** The operator caches only the Secrets it manages (label selector of the Secret informer). */
const LEASE_SECRET_LABELS = { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR };
const TERMINATING_RECHECK_MS = 10_000;
/** A slow safety pass for waiting leases; every change that can free capacity is an event already. */
const WAITING_RESYNC_MS = 5 * 60_000;
const CLAIM_CONFLICT_RETRY_MS = 50;
/** The Warning Event comes this long before expiry (or a tenth of the TTL, if that is shorter). */
const EXPIRY_WARNING_MS = 5 * 60_000;

const leaseKey = (namespace: string | undefined, name: string): string => `${namespace}/${name}`;

/**
 * The ClusterLease controller (spec §2.2 and DESIGN items 2–3). Binding is a compare-and-swap
 * claim on the instance (status.leaseRef, written with the instance's resourceVersion), then the
 * lease's status.instanceRef; a claim whose lease ended up elsewhere is released. So an instance
 * is never given to two leases, however many managers run and however stale their caches are.
 */
export class LeaseController {
  /**
   * Versions of leases that this controller's own writes have superseded (binding writes the
   * status, then the finalizer), by key, until the cache shows a version past them. A pass on one
   * of them would only repeat those writes and conflict; the newer version's event brings the key
   * back.
   */
  private readonly superseded = new Map<string, Set<string>>();

  constructor(private readonly manager: Manager) {}

  registration(): ControllerRegistration {
    const leases = this.manager.informer<ClusterLease>(LEASES);
    const waitingInPool = (namespace: string | undefined, pool: string | undefined): string[] =>
      leases
        .list(
          (l) =>
            l.metadata!.namespace === namespace &&
            l.spec.poolRef.name === pool &&
            isPendingLease(l),
        )
        .map((l) => leaseKey(namespace, l.metadata!.name!));
    return {
      name: 'clusterlease',
      forType: LEASES,
      owns: [SECRETS],
      watches: [
        {
          type: INSTANCES,
          // Its claimant always hears of it. Waiting leases only when the instance becomes
          // available, or stops being available other than by a claim (a claimed instance leaves
          // together with its lease, which moves no one else).
          mapChange: (previous, current) => {
            const instance = (current ?? previous) as ClusterInstance;
            const namespace = instance.metadata!.namespace;
            const claimant = instance.status?.leaseRef?.name;
            const wasAvailable = isAvailable(previous as ClusterInstance | undefined);
            const nowAvailable = isAvailable(current as ClusterInstance | undefined);
            const leftUnclaimed =
              wasAvailable &&
              !nowAvailable &&
              !(current as ClusterInstance | undefined)?.status?.leaseRef;
            const waiting =
              (!wasAvailable && nowAvailable) || leftUnclaimed
                ? waitingInPool(namespace, instance.spec.poolRef?.name)
                : [];
            return [...(claimant ? [leaseKey(namespace, claimant)] : []), ...waiting];
          },
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
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const lease = this.manager.informer<ClusterLease>(LEASES).get(key);
    if (this.cacheBehindOwnWrites(key, lease)) return {};
    if (!lease) return this.deleteOrphanedClaims(key, context);
    if (lease.metadata?.deletionTimestamp) return this.release(lease, context);
    switch (lease.status?.phase ?? '') {
      case 'Bound':
        return this.whileBound(await this.withFinalizer(lease), context);
      case 'Releasing':
        await this.deleteLease(lease);
        return {};
      case 'Released':
      case 'Failed':
        return {};
      default:
        // matchmake adds the finalizer itself: on the bind path, right after the binding.
        return this.matchmake(lease, context);
    }
  }

  /** True while the cache still shows a version of the lease that this controller wrote past. */
  private cacheBehindOwnWrites(key: string, lease: ClusterLease | undefined): boolean {
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
  private async withFinalizer(lease: ClusterLease): Promise<ClusterLease> {
    if (lease.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE)) return lease;
    const finalizers = [...(lease.metadata?.finalizers ?? []), FINALIZER_LEASE_RELEASE];
    return this.manager.client.update(LEASES, {
      ...lease,
      metadata: { ...lease.metadata, finalizers },
    });
  }

  /**
   * Instances claimed by a lease that no longer exists: its finalizer never ran (the lease went
   * before the finalizer written after the binding landed, or someone removed the finalizer). The
   * cache may just lag behind a new lease, so the lease is read live first. The instance may have
   * been used, so it is deleted, not handed out again; the pool replaces it.
   */
  private async deleteOrphanedClaims(
    key: string,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    const claimed = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) =>
          i.metadata!.namespace === namespace &&
          i.status?.leaseRef?.name === name &&
          !i.metadata?.deletionTimestamp,
      );
    if (claimed.length === 0) return {};
    const liveUid = await this.manager.client
      .get<ClusterLease>(LEASES, name, namespace)
      .then((lease) => lease.metadata?.uid)
      .catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
    for (const instance of claimed) {
      if (instance.status?.leaseRef?.uid === liveUid) continue;
      await this.manager.client
        .delete(INSTANCES, instance.metadata!.name!, namespace, { uid: instance.metadata!.uid })
        .catch((error: unknown) => {
          if (!isNotFound(error) && !isConflict(error)) throw error;
        });
      context.logger.info(
        { instance: instance.metadata!.name },
        'Deleted ClusterInstance claimed by a ClusterLease that no longer exists',
      );
    }
    return {};
  }

  private async matchmake(
    lease: ClusterLease,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const namespace = lease.metadata!.namespace!;
    const poolName = lease.spec.poolRef.name;
    if (!(await this.poolExists(namespace, poolName))) {
      await this.fail(
        await this.withFinalizer(lease),
        'PoolNotFound',
        `ClusterPool "${poolName}" does not exist in namespace "${namespace}"`,
      );
      return {};
    }
    const taken = this.foreignKubeconfigSecret(lease);
    if (taken) {
      await this.fail(await this.withFinalizer(lease), 'KubeconfigSecretConflict', taken);
      return {};
    }
    const policy = await namespacePolicy(this.manager, namespace);
    if (policy.terminating) {
      const finalized = await this.withFinalizer(lease);
      await this.writeStatus(
        finalized,
        this.pendingStatus(finalized, policy.reason, policy.message),
      );
      return { requeueAfterMs: TERMINATING_RECHECK_MS };
    }
    const instances = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) => i.metadata!.namespace === namespace && i.metadata?.labels?.[LABEL_POOL] === poolName,
      );
    // A claim of ours from an earlier pass (or another manager) that the lease has not recorded yet.
    const claimed = instances.find(
      (i) => i.status?.leaseRef?.uid === lease.metadata!.uid && !i.metadata?.deletionTimestamp,
    );
    if (claimed?.status?.phase === 'Ready') {
      await this.writeLeaseSecret(lease, claimed);
      return this.recordBinding(lease, claimed, context);
    }

    const leases = this.manager
      .informer<ClusterLease>(LEASES)
      .list((l) => l.metadata!.namespace === namespace);
    const placement = placeLease(lease, leases, instances);
    if ('queuePosition' in placement) {
      const message = `no Ready, unclaimed ClusterInstance in pool "${poolName}"; waiting for ClusterPool controller to provision one`;
      const finalized = await this.withFinalizer(lease);
      await this.writeStatus(
        finalized,
        this.pendingStatus(finalized, 'WaitingForCapacity', message, placement.queuePosition),
      );
      return { requeueAfterMs: WAITING_RESYNC_MS };
    }
    const instance = placement.instance;
    // The claim and the Secret copy do not depend on each other: send them together. A copy made
    // for a claim that then loses is overwritten when this lease binds elsewhere.
    const [claim] = await Promise.all([
      this.claim(lease, instance),
      this.writeLeaseSecret(lease, instance),
    ]);
    if (!claim) return { requeueAfterMs: CLAIM_CONFLICT_RETRY_MS };
    context.logger.debug({ instance: instance.metadata!.name }, 'Claimed ClusterInstance');
    return this.recordBinding(lease, claim, context);
  }

  /**
   * Why the lease's Secret `<lease>-kubeconfig` cannot be its own: an object of that name that
   * the lease does not own (an instance named like the lease publishes its kubeconfig under the
   * same name). Undefined when the name is free or the lease's. Checked before claiming anything.
   */
  private foreignKubeconfigSecret(lease: ClusterLease): string | undefined {
    const { name, namespace, uid } = lease.metadata!;
    const secretName = `${name}-kubeconfig`;
    const existing = this.manager.informer<SecretObject>(SECRETS).get(`${namespace}/${secretName}`);
    if (!existing || existing.metadata?.ownerReferences?.some((ref) => ref.uid === uid))
      return undefined;
    const owner = existing.metadata?.ownerReferences?.find((ref) => ref.controller);
    const whose = owner ? `${owner.kind} ${owner.name}'s` : 'another object';
    return `Secret ${namespace}/${secretName}, where this lease's kubeconfig would go, is ${whose}; recreate the lease under another name`;
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
   * Writes the instance's kubeconfig, as the operator published it, into the lease's Secret, and
   * lets the lease's subjects read it.
   */
  private async writeLeaseSecret(lease: ClusterLease, instance: ClusterInstance): Promise<void> {
    const data = await leaseKubeconfigData(this.manager, instance);
    await this.ensureLeaseSecret(lease, `${lease.metadata!.name}-kubeconfig`, data);
    await ensureLeaseAccess(this.manager, lease);
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
    const secretName = `${lease.metadata!.name}-kubeconfig`;
    const now = this.manager.clock.now();
    const boundTime = isoSeconds(now);
    const ttlMs = lease.spec.ttl ? parseGoDuration(lease.spec.ttl) : undefined;
    const message = `bound to ClusterInstance "${instance.metadata!.name}"`;
    const status: LeaseStatus = {
      ...lease.status,
      phase: 'Bound',
      instanceRef: { name: instance.metadata!.name! },
      kubeconfigSecretRef: { name: secretName },
      ocpVersion: instance.status?.ocpVersion,
      topology: instance.status?.topology,
      apiEndpoint: instance.status?.apiEndpoint,
      boundTime,
      ...(ttlMs ? { expiresAt: isoSeconds(Date.parse(boundTime) + ttlMs) } : {}),
      observedGeneration: lease.metadata?.generation,
      conditions: this.conditions(lease, 'True', 'InstanceBound', message, now),
    };
    delete status.queuePosition;
    const bound = await this.manager.client.updateStatus(LEASES, { ...lease, status });
    context.logger.info(
      { instance: instance.metadata!.name },
      'Bound ClusterLease to ClusterInstance',
    );
    void this.manager.events.record(
      bound,
      'Normal',
      'Bound',
      `Bound to ClusterInstance ${instance.metadata!.name}`,
    );
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
    return finalized ? this.ttl(finalized) : {};
  }

  private async ensureLeaseSecret(
    lease: ClusterLease,
    name: string,
    data: Record<string, string>,
  ): Promise<void> {
    const namespace = lease.metadata!.namespace!;
    const owner = {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      name: lease.metadata!.name!,
      uid: lease.metadata!.uid!,
      controller: true,
      blockOwnerDeletion: true,
    };
    try {
      await this.manager.client.create<SecretObject>(SECRETS, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels: LEASE_SECRET_LABELS, ownerReferences: [owner] },
        type: 'Opaque',
        data,
      });
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const existing = await this.manager.client.get<SecretObject>(SECRETS, name, namespace);
    if (
      !existing.metadata?.ownerReferences?.some(
        (r) => r.controller && r.uid === lease.metadata!.uid,
      )
    ) {
      throw new Error(`lease kubeconfig Secret ${namespace}/${name} belongs to another owner`);
    }
    const labels = { ...existing.metadata.labels, ...LEASE_SECRET_LABELS };
    await this.manager.client.update(SECRETS, {
      ...existing,
      metadata: { ...existing.metadata, labels },
      data,
    });
  }

  private async whileBound(
    lease: ClusterLease,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    await ensureLeaseAccess(this.manager, lease);
    // Release claims of this lease on instances other than the one it is bound to (a race lost).
    const stale = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) =>
          i.status?.leaseRef?.uid === lease.metadata!.uid &&
          i.metadata!.name !== lease.status?.instanceRef?.name,
      );
    for (const instance of stale) {
      const status = { ...instance.status };
      delete status.leaseRef;
      await this.manager.client.updateStatus(INSTANCES, { ...instance, status });
      context.logger.info(
        { instance: instance.metadata!.name },
        'Released stale claim on ClusterInstance',
      );
    }
    return this.ttl(lease);
  }

  /** Deletes the lease at its deadline, after a Warning Event shortly before. */
  private async ttl(lease: ClusterLease): Promise<ReconcileResult> {
    const ttlMs = lease.spec.ttl ? parseGoDuration(lease.spec.ttl) : undefined;
    const boundTime = lease.status?.boundTime;
    if (!ttlMs || !boundTime) return {};
    const now = this.manager.clock.now();
    const deadline = Date.parse(boundTime) + ttlMs;
    if (now >= deadline) {
      void this.manager.events.record(
        lease,
        'Warning',
        'Expired',
        `TTL ${lease.spec.ttl} expired; releasing the cluster`,
      );
      await this.deleteLease(lease);
      return {};
    }
    const warnAt = deadline - Math.min(EXPIRY_WARNING_MS, ttlMs / 10);
    if (now < warnAt) return { requeueAfterMs: warnAt - now };
    await this.manager.events.record(
      lease,
      'Warning',
      'ExpiringSoon',
      `TTL ${lease.spec.ttl} expires at ${new Date(deadline).toISOString()}; the cluster will be released then`,
    );
    // Measured after the write: time moves on while it is under way.
    return { requeueAfterMs: Math.max(0, deadline - this.manager.clock.now()) };
  }

  /** The finalizer: deletes the bound (or merely claimed) instance, then lets the lease go. */
  private async release(lease: ClusterLease, context: ReconcileContext): Promise<ReconcileResult> {
    if (!lease.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE)) return {};
    const namespace = lease.metadata.namespace;
    const names = new Set<string>();
    if (lease.status?.instanceRef?.name) names.add(lease.status.instanceRef.name);
    for (const instance of this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list((i) => i.status?.leaseRef?.uid === lease.metadata!.uid)) {
      names.add(instance.metadata!.name!);
    }
    for (const name of names) {
      try {
        await this.manager.client.delete(INSTANCES, name, namespace);
        context.logger.info({ instance: name }, 'Deleted ClusterInstance of released ClusterLease');
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    const finalizers = lease.metadata.finalizers.filter((f) => f !== FINALIZER_LEASE_RELEASE);
    await this.manager.client.update(LEASES, {
      ...lease,
      metadata: { ...lease.metadata, finalizers },
    });
    return {};
  }

  private async poolExists(namespace: string, name: string): Promise<boolean> {
    if (this.manager.informer<ClusterPool>(POOLS).get(`${namespace}/${name}`)) return true;
    try {
      // The cache may lag behind a pool created just before the lease.
      await this.manager.client.get(POOLS, name, namespace);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  private async fail(lease: ClusterLease, reason: string, message: string): Promise<void> {
    const now = this.manager.clock.now();
    await this.writeStatus(lease, {
      ...lease.status,
      phase: 'Failed',
      observedGeneration: lease.metadata?.generation,
      conditions: this.conditions(lease, 'False', reason, message, now),
    });
    void this.manager.events.record(lease, 'Warning', reason, message);
  }

  private pendingStatus(
    lease: ClusterLease,
    reason: string,
    message: string,
    queuePosition?: number,
  ): LeaseStatus {
    const status: LeaseStatus = {
      ...lease.status,
      phase: 'Pending',
      observedGeneration: lease.metadata?.generation,
      conditions: this.conditions(lease, 'False', reason, message, this.manager.clock.now()),
    };
    if (queuePosition === undefined) delete status.queuePosition;
    else status.queuePosition = queuePosition;
    return status;
  }

  /** Bound and Ready move together: Ready is what `kubectl wait --for=condition=Ready` reads. */
  private conditions(
    lease: ClusterLease,
    status: 'True' | 'False',
    reason: string,
    message: string,
    now: number,
  ): LeaseStatus['conditions'] {
    const generation = lease.metadata?.generation;
    let conditions = setCondition(
      lease.status?.conditions,
      { type: 'Bound', status, reason, message, observedGeneration: generation },
      now,
    );
    conditions = setCondition(
      conditions,
      { type: 'Ready', status, reason, message, observedGeneration: generation },
      now,
    );
    return conditions;
  }

  private async writeStatus(lease: ClusterLease, status: LeaseStatus): Promise<void> {
    if (sameContent(lease.status ?? {}, status)) return;
    await this.manager.client.updateStatus(LEASES, { ...lease, status });
  }

  private async deleteLease(lease: ClusterLease): Promise<void> {
    try {
      await this.manager.client.delete(LEASES, lease.metadata!.name!, lease.metadata!.namespace);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

/** RFC 3339 with whole seconds, as metav1.Time is written. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
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
