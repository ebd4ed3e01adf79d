import { FINALIZER_LEASE_RELEASE } from '../../api/labels.js';
import { startedWait } from '../../api/waits.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../../client/api/resources.js';
import { isConflict, isNotFound, orUndefined } from '../../../client/kube/api-error.js';
import { writeClaim } from '../binding/instance-status-writes.js';
import type { Stored } from '../../kube/objects.js';
import { objectKey } from '../../kube/objects.js';
import { withFinalizer } from '../../kube/ownership.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { LeaseTimings } from '../../timings.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { isClaimedBy, placeLease } from '../binding/binding-model.js';
import { gateInstances } from '../binding/hand-out-gate.js';
import { versionUnavailable } from '../binding/pool-offer.js';
import { isInstanceOf } from '../binding/pool-membership.js';
import { namespacePolicyFrom } from '../namespace-policy.js';
import { ensureLeaseAccess } from './lease-access.js';
import { LeaseSecrets, leaseSecretName } from './lease-kubeconfig.js';
import { bindRefusal, blockedByLimits, leaseTtl, poolLimits } from '../binding/lease-limits.js';
import type { LeaseStatus } from './lease-status.js';
import {
  LeaseEvent,
  LeaseReason,
  failLease,
  pendingStatus,
  usableConditions,
  writeLeaseStatus,
} from './lease-status.js';
import type { LeaseMetrics } from './lease-metrics.js';
import { observeBound } from './lease-metrics.js';
import { enforceTtl, expiresAt } from './lease-ttl.js';
import type { ResumeStep } from './lease-resume.js';
import {
  askToRun,
  claimForResume,
  releaseResumeClaim,
  resumableSpares,
  resumeStep,
} from './lease-resume.js';
import { metaTime } from '../../../client/kube/meta-time.js';

/**
 * Waits that only a person ends, by a change of the lease or its pool
 * (docs/reference/kinds.md#waits-that-need-a-person).
 */
export const LEASE_NEEDS_A_PERSON: ReadonlySet<string> = new Set<string>([
  LeaseReason.PoolNotFound,
  LeaseReason.PoolDeleting,
  LeaseReason.VersionUnavailable,
  LeaseReason.TTLRequired,
  LeaseReason.TTLAbovePoolLimit,
  LeaseReason.HeldBeforeBinding,
]);

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

  constructor(
    private readonly ports: ControllerPorts,
    private readonly timings: LeaseTimings,
    private readonly metrics?: LeaseMetrics,
  ) {
    this.secrets = new LeaseSecrets(ports);
  }

  /** True while the cache still shows a version of the lease that this controller wrote past. */
  cacheBehindOwnWrites(key: string, lease: Lease | undefined): boolean {
    const versions = this.superseded.get(key);
    if (!versions) return false;
    if (lease && versions.has(lease.metadata.resourceVersion)) return true;
    this.superseded.delete(key);
    return false;
  }

  /**
   * Adds the release finalizer (a write) unless the lease has it, so that whatever it claims is
   * released with it. The pass goes on with the returned object rather than its watch event.
   */
  async ensureFinalizer(lease: Lease): Promise<Lease> {
    const withIt = withFinalizer(lease, FINALIZER_LEASE_RELEASE);
    return withIt === lease ? lease : this.ports.client.update(LEASES, withIt);
  }

  /** Finds the lease an instance (or a reason to wait, or to fail) and binds it. */
  async matchmake(lease: Lease, context: ReconcileContext): Promise<ReconcileResult> {
    const { namespace } = lease.metadata;
    const ttl = leaseTtl(lease);
    if ('invalid' in ttl) {
      await failLease(
        this.ports,
        await this.ensureFinalizer(lease),
        LeaseReason.InvalidSpec,
        ttl.invalid,
      );
      return {};
    }
    const pool = await this.poolHold(lease);
    if ('reason' in pool) {
      await this.wait(lease, pool.reason, pool.message);
      return { requeueAfterMs: this.timings.waitingResyncMs };
    }
    // The pool's limits hold however the lease got here: created before the pool or its cap,
    // or on a cluster without the admission policy (docs/reference/kinds.md#lease-limits).
    const limits = poolLimits(pool);
    const refusal = bindRefusal(lease, limits);
    if (refusal) {
      await this.wait(lease, refusal.reason, refusal.message);
      return {};
    }
    const taken = await this.secrets.foreignOwner(lease);
    if (taken) {
      const finalized = await this.ensureFinalizer(lease);
      await failLease(this.ports, finalized, LeaseReason.KubeconfigSecretConflict, taken);
      return {};
    }
    const policy = await namespacePolicyFrom(this.ports, namespace);
    if (policy.terminating) {
      await this.wait(lease, policy.reason, policy.message);
      return { requeueAfterMs: this.timings.namespaceRecheckMs };
    }
    const poolName = lease.spec.poolRef.name;
    // Only instances the pool made (pool-membership.ts): one that merely names it is not bound.
    const instances = (await this.ports.cache.read<ClusterInstance>(INSTANCES)).list(
      namespace,
      (i) => isInstanceOf(i, poolName),
    );
    // A claim of ours from an earlier pass (or another manager) that the lease has not recorded yet.
    const now = this.ports.clock.now();
    const held = await this.heldClaim(lease, pool, instances, now, context);
    if (held) return held;

    // Leases the limits keep from binding take no place in the queue.
    const leases = (await this.ports.cache.read<ClusterLease>(LEASES)).list(
      namespace,
      (l) => !blockedByLimits(l, limits),
    );
    const unavailable = versionUnavailable(pool, lease, instances, leases);
    if (unavailable) {
      await this.wait(lease, LeaseReason.VersionUnavailable, unavailable);
      return { requeueAfterMs: this.timings.waitingResyncMs };
    }
    // Only guests that pass their readiness gates are handed out (hand-out-gate.ts).
    const gated = gateInstances(instances, lease, pool, now, this.timings.guestHealthMaxAgeMs);
    const placement = placeLease(lease, leases, gated.offered);
    if ('queuePosition' in placement) {
      // No running spare for this lease: a hibernated one is resumed before waiting for one.
      const resumable = resumableSpares(instances, leases, lease)[placement.queuePosition - 1];
      if (resumable) return this.resume(lease, resumable);
      const held = gated.heldBack[0];
      if (held) {
        const message = `no Ready, unclaimed ClusterInstance in pool "${poolName}" passes its readiness gates; ${held.problem}`;
        await this.wait(
          lease,
          LeaseReason.WaitingForHealthyInstance,
          message,
          placement.queuePosition,
        );
        return { requeueAfterMs: this.timings.guestHealthMaxAgeMs };
      }
      const message = `no Ready, unclaimed ClusterInstance in pool "${poolName}"; waiting for ClusterPool controller to provision one`;
      await this.wait(lease, LeaseReason.WaitingForCapacity, message, placement.queuePosition);
      return { requeueAfterMs: this.timings.waitingResyncMs };
    }
    const { instance } = placement;
    // The grants to read the lease's Secret go out beside the claim and the copy: its name was
    // found free or the lease's own above, and the copy is made only once the claim is won, so
    // they never show one of another lease's cluster (docs/reference/kinds.md#binding).
    const claimAndCopy = async (): Promise<{ claim: Instance; copied: boolean } | undefined> => {
      const claim = await this.claim(lease, instance);
      return claim && { claim, copied: await this.secrets.createFor(lease, claim) };
    };
    const [won] = await Promise.all([
      claimAndCopy(),
      ensureLeaseAccess(this.ports, lease, 'create-first'),
    ]);
    if (!won) return { requeueAfterMs: this.timings.claimConflictRetryMs };
    context.logger.debug({ instance: instance.metadata.name }, 'Claimed ClusterInstance');
    return this.finishBind(lease, won.claim, context, { granted: true, copied: won.copied });
  }

  /**
   * With the claim won: makes the Secret copy hold the claimed instance's kubeconfig (unless it
   * was just created) and grants its subjects access (unless that went with the claim), then
   * records the binding. When the copy exists already, the lease is read live first: if it is
   * bound already (this cache is behind another manager's bind), the copy is left to the bound
   * lease, and this claim is released by it as a race lost.
   */
  private async finishBind(
    lease: Lease,
    instance: Instance,
    context: ReconcileContext,
    done: { granted: boolean; copied?: boolean },
  ): Promise<ReconcileResult> {
    const copied = done.copied ?? (await this.secrets.createFor(lease, instance));
    if (!copied) {
      const { name, namespace, uid } = lease.metadata;
      const live = await this.ports.client.getOrUndefined<ClusterLease>(LEASES, name, namespace);
      if (!live || live.metadata.uid !== uid || live.status?.instanceRef?.name) return {};
      await this.secrets.writeFor(lease, instance);
    }
    if (!done.granted) await ensureLeaseAccess(this.ports, lease, 'create-first');
    return this.recordBinding(lease, instance, context);
  }

  /**
   * A claim of ours from an earlier pass (or another manager) that the lease has not recorded yet:
   * bound when its instance is Ready, followed while it resumes. Undefined when there is none.
   */
  private async heldClaim(
    lease: Lease,
    pool: ClusterPool,
    instances: readonly Instance[],
    now: number,
    context: ReconcileContext,
  ): Promise<ReconcileResult | undefined> {
    const claimed = instances.find((i) => isClaimedBy(i, lease) && !i.metadata.deletionTimestamp);
    if (!claimed) return undefined;
    const gate = { now, maxAgeMs: this.timings.guestHealthMaxAgeMs };
    const resume = resumeStep(claimed, lease, pool, gate);
    if (resume) return this.followResume(lease, claimed, resume, context);
    if (claimed.status?.phase === 'Ready')
      return this.finishBind(lease, claimed, context, { granted: false });
    return undefined;
  }

  /** Claims a hibernated spare and asks it to run (docs/reference/kinds.md#hibernation). */
  private async resume(lease: Lease, instance: Instance): Promise<ReconcileResult> {
    const claim = await claimForResume(this.ports, lease, instance);
    if (!claim) return { requeueAfterMs: this.timings.claimConflictRetryMs };
    const name = instance.metadata.name;
    await this.wait(lease, LeaseReason.Resuming, `resuming hibernated ClusterInstance ${name}`);
    void this.ports.events.record(
      lease,
      'Normal',
      LeaseReason.Resuming,
      `Resuming hibernated ClusterInstance ${name}`,
    );
    return { requeueAfterMs: this.timings.waitingResyncMs };
  }

  /**
   * A lease whose claimed instance resumes: binds once it may be handed out, waits with reason
   * Resuming while it boots, or gives the claim back when the resumed guest cannot serve it.
   */
  private async followResume(
    lease: Lease,
    instance: Instance,
    step: ResumeStep,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if ('bind' in step) return this.finishBind(lease, instance, context, { granted: false });
    if ('wait' in step) {
      await askToRun(this.ports, instance);
      await this.wait(lease, LeaseReason.Resuming, step.wait);
      return { requeueAfterMs: this.timings.waitingResyncMs };
    }
    if (await releaseResumeClaim(this.ports, instance)) {
      context.logger.warn({ instance: instance.metadata.name }, step.released);
      void this.ports.events.record(lease, 'Warning', LeaseEvent.ResumeFailed, step.released);
    }
    return { requeueAfterMs: this.timings.claimConflictRetryMs };
  }

  /** The lease's pool, or why the lease waits on it (it does not exist, or it is being deleted). */
  private async poolHold(
    lease: Lease,
  ): Promise<Stored<ClusterPool> | { reason: string; message: string }> {
    const { namespace } = lease.metadata;
    const name = lease.spec.poolRef.name;
    const pool =
      (await this.ports.cache.read<ClusterPool>(POOLS)).get(name, namespace) ??
      // The cache may lag behind a pool created just before the lease.
      (await this.ports.client.getOrUndefined<ClusterPool>(POOLS, name, namespace));
    if (!pool)
      return {
        reason: LeaseReason.PoolNotFound,
        message: `ClusterPool "${name}" does not exist in namespace "${namespace}"; create it and the lease binds, or delete the lease`,
      };
    if (pool.metadata.deletionTimestamp)
      return {
        reason: LeaseReason.PoolDeleting,
        message: `ClusterPool "${name}" is being deleted; the lease binds once a pool of that name exists again: create one, or delete the lease`,
      };
    return pool;
  }

  private async wait(
    lease: Lease,
    reason: string,
    message: string,
    queuePosition?: number,
  ): Promise<void> {
    const finalized = await this.ensureFinalizer(lease);
    const now = this.ports.clock.now();
    const status = pendingStatus(finalized, now, reason, message, queuePosition);
    const written = await writeLeaseStatus(this.ports, finalized, status);
    // A wait a person must act on is said once, as an Event, when this write starts it.
    const started = startedWait(
      finalized.status?.conditions,
      written.status?.conditions,
      'Ready',
      LEASE_NEEDS_A_PERSON,
    );
    if (started) void this.ports.events.record(written, 'Warning', started.reason, started.message);
  }

  /** The compare-and-swap claim on the instance; undefined when someone changed it first. */
  private async claim(lease: Lease, instance: Instance): Promise<Instance | undefined> {
    return orUndefined(writeClaim(this.ports.client, instance, lease.metadata), isConflict);
  }

  /**
   * Records the binding on the lease, the record that CI and kubectl read, and then adds the
   * release finalizer. Only the claim and the Secret have to come before Bound; the finalizer
   * after it keeps one write off the wait. A lease deleted in between leaves an orphaned claim,
   * which deleteOrphanedClaims removes.
   */
  private async recordBinding(
    lease: Lease,
    instance: Instance,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const now = this.ports.clock.now();
    const { name, uid } = instance.metadata;
    const status: LeaseStatus = {
      ...lease.status,
      phase: 'Bound',
      instanceRef: { name, uid },
      kubeconfigSecretRef: { name: leaseSecretName(lease) },
      ocpVersion: instance.status?.ocpVersion,
      topology: instance.status?.topology,
      apiEndpoint: instance.status?.apiEndpoint,
      boundTime: metaTime(now),
      observedGeneration: lease.metadata.generation,
      conditions: usableConditions(lease, now, name),
    };
    delete status.queuePosition;
    const expiry = expiresAt({ ...lease, status });
    if (expiry) status.expiresAt = expiry;
    else delete status.expiresAt;
    const bound = await writeLeaseStatus(this.ports, lease, status);
    context.logger.info({ instance: name }, 'Bound ClusterLease to ClusterInstance');
    observeBound(this.metrics, lease, now);
    void this.ports.events.record(
      bound,
      'Normal',
      LeaseEvent.Bound,
      `Bound to ClusterInstance ${name}`,
    );
    // A lease deleted or changed since the binding fails this write; its watch event brings the
    // next pass, which adds the finalizer or removes the orphaned claim.
    const finalized = await orUndefined(this.ensureFinalizer(bound), isNotFound, isConflict);
    const outdated = [lease, ...(finalized && finalized !== bound ? [bound] : [])];
    this.superseded.set(
      objectKey(bound),
      new Set(outdated.map((version) => version.metadata.resourceVersion)),
    );
    return finalized ? enforceTtl(this.ports, this.timings, finalized) : {};
  }
}
