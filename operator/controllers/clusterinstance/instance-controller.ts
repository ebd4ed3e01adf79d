import { FINALIZER_INSTANCE_CLEANUP } from '../../api/labels.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES, NAMESPACES } from '../../../client/api/resources.js';
import { formatGoDuration } from '../../../client/api/duration.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import { withFinalizer, withoutFinalizer } from '../../kube/ownership.js';
import { StepFailure } from '../../reconcile/step-errors.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import { namesPool } from '../binding/pool-membership.js';
import type { Instance, InstanceApi } from './core/instance-api.js';
import { instanceMetrics, observeTornDown } from './core/instance-metrics.js';
import { InstanceFailure, Reason } from './core/reasons.js';
import { applyProvisioningDeadline } from './core/provisioning-deadline.js';
import { finishResume, startResume, wantsHibernation } from './core/hibernation.js';
import { InstanceStatusDraft } from './core/status-draft.js';
import type { InstanceTimings } from './core/timings.js';
import { instanceKeys } from './core/watches.js';
import { writeInstanceStatus } from './core/write-status.js';
import { readPlatformReadiness } from './platform-readiness.js';
import type { TeardownOutcome, Topology } from './core/topology.js';

type ClusterType = ClusterInstance['spec']['type'];

const AUTHORIZED =
  'Provisioning authorization is recorded; namespace opt-out does not revoke existing work';

/**
 * The ClusterInstance controller (docs/reference/instances.md#reconcile-order): finalizer,
 * namespace and platform gates, deletion handling and phases for every topology, and dispatch on
 * spec.type to the topology that builds the guest. A pass builds one status draft (the gates'
 * conditions, the topology's records and verdict) and writes it once, at the end.
 */
export class InstanceController {
  constructor(
    private readonly api: InstanceApi,
    private readonly topologies: Partial<Record<ClusterType, Topology>>,
    private readonly timings: InstanceTimings,
  ) {}

  registration(): ControllerRegistration {
    instanceMetrics(this.api);
    return {
      name: 'clusterinstance',
      forType: INSTANCES,
      watches: [
        {
          // The namespace gate: every instance in a namespace whose opt-in changed.
          type: NAMESPACES,
          map: (namespace) =>
            instanceKeys(this.api, (i) => i.metadata.namespace === namespace.metadata?.name),
        },
        ...Object.values(this.topologies).flatMap((t) => t.watches()),
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const instance = this.api.cached<ClusterInstance>(INSTANCES, key);
    const topology = instance && this.topologies[instance.spec.type];
    if (!instance || !topology) return {};
    // An instance that names a pool is the pool's to authorize (pool-membership.ts): until it
    // has, nothing is done for it, and one the pool never made is never provisioned.
    if (namesPool(instance) && !instance.status?.provisioning) return {};
    if (instance.metadata?.deletionTimestamp) return this.finalize(instance, topology, context);
    // The finalizer comes before anything is created; its update event starts the next pass.
    if (await this.addedFinalizer(instance)) return {};
    const draft = new InstanceStatusDraft(instance, this.api.now());
    try {
      const result = await this.gatedPass(draft, topology, context);
      await writeInstanceStatus(this.api, draft, context.logger);
      return result;
    } catch (error) {
      if (!(error instanceof StepFailure)) throw error;
      // Marked Failed and retried with backoff (docs/reference/instances.md#reconcile-order: Failed
      // is not terminal); the pool replaces failed instances nobody claims.
      const conditions = error instanceof InstanceFailure ? error.conditions : [];
      const failed = draft.failed(error.reason, error.message, conditions);
      await writeInstanceStatus(this.api, failed, context.logger);
      context.logger.warn({ reason: error.reason, err: error }, 'ClusterInstance failed');
      throw error;
    }
  }

  /** Adds the cleanup finalizer unless the instance has it; true when it was added. */
  private async addedFinalizer(instance: Instance): Promise<boolean> {
    const withIt = withFinalizer(instance, FINALIZER_INSTANCE_CLEANUP);
    if (withIt === instance) return false;
    await this.api.update(INSTANCES, withIt);
    return true;
  }

  /** The gates, then the topology's steps, all into one draft. */
  private async gatedPass(
    draft: InstanceStatusDraft,
    topology: Topology,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if (!(await this.namespaceGate(draft))) return {};
    const platform = await this.platformGate(draft, topology);
    if (platform) return platform;
    const now = this.api.now();
    if (wantsHibernation(draft.instance) && (await this.stillWantsHibernation(draft.instance)))
      return topology.hibernate(draft, context);
    if (draft.instance.status?.phase === 'Hibernated') startResume(draft, now);
    const result = await topology.reconcile(draft, context);
    finishResume(draft, now);
    return applyProvisioningDeadline(draft, result, now);
  }

  /**
   * Stopping a guest is decided on a live read: a lease may have claimed the spare since the cache
   * saw it (a claimed instance runs). The status write of the pass carries the resourceVersion
   * read, so a claim after this read fails it.
   */
  private async stillWantsHibernation(instance: Instance): Promise<boolean> {
    const { name, namespace, uid } = instance.metadata;
    const live = await this.api.get<ClusterInstance>(INSTANCES, name, namespace);
    return !!live && live.metadata.uid === uid && wantsHibernation(live);
  }

  /**
   * The namespace opt-in (docs/reference/instances.md#namespace-policy): provisioning starts only
   * once it was allowed, and the authorization is recorded so a later opt-out does not strand work
   * in progress. False stops the pass (a namespace event brings the next one).
   */
  private async namespaceGate(draft: InstanceStatusDraft): Promise<boolean> {
    const instance = draft.instance;
    const policy = await this.api.namespacePolicy(instance);
    const allowed = (status: 'True' | 'False', reason: string, message: string): void =>
      void draft.condition({ type: 'ProvisioningAllowed', status, reason, message });
    if (policy.terminating) {
      allowed('False', policy.reason, policy.message);
      return false;
    }
    if (instance.status?.provisioning) {
      // A pool records the authorization when it creates the instance; say so here.
      if (!draft.hasCondition('ProvisioningAllowed'))
        allowed('True', Reason.ProvisioningAuthorized, AUTHORIZED);
      return true;
    }
    if (!policy.enabled) {
      allowed('False', policy.reason, policy.message);
      draft.waiting(policy.reason, policy.message);
      return false;
    }
    draft.status.provisioning = {
      startedAt: metaTime(this.api.now()),
    };
    allowed('True', Reason.ProvisioningAuthorized, AUTHORIZED);
    draft.phase('Provisioning');
    return true;
  }

  /**
   * The platform readiness gate (docs/reference/instances.md#platform-gate): HyperConverged, and
   * for hcp the MultiClusterEngine with HyperShift, must be ready before provisioning. Read live:
   * these operands are not watched, so that a cluster without them does not keep the caches from
   * syncing. While something is not ready the instance says so and looks again after a while.
   * Returns a result to stop the pass with, or undefined to go on.
   */
  private async platformGate(
    draft: InstanceStatusDraft,
    topology: Topology,
  ): Promise<ReconcileResult | undefined> {
    const phase = draft.instance.status?.phase;
    if (phase === 'Failed' || (phase === 'Ready' && !topology.platformGate.whenReady))
      return undefined;
    const verdicts = await readPlatformReadiness(this.api, topology.platformGate);
    for (const { type, readiness } of verdicts) {
      draft.condition({
        type,
        status: readiness.ready ? 'True' : 'False',
        reason: readiness.reason,
        message: readiness.message,
      });
    }
    draft.status.observedGeneration = draft.instance.metadata?.generation;
    const failing = verdicts.find((v) => !v.readiness.ready);
    if (!failing) return undefined;
    const { type, readiness } = failing;
    draft.waiting(
      readiness.reason,
      `Platform dependencies are not ready: ${type}: ${readiness.message}`,
    );
    return { requeueAfterMs: this.timings.platformRecheckMs };
  }

  /**
   * The deletion handler (docs/reference/instances.md#deletion): teardown, then the finalizer goes.
   */
  private async finalize(
    instance: Instance,
    topology: Topology,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if (!instance.metadata?.finalizers?.includes(FINALIZER_INSTANCE_CLEANUP)) return {};
    const now = this.api.now();
    const { cleanupTimeoutMs, teardownResyncMs } = this.timings;
    const deadline = Date.parse(instance.metadata.deletionTimestamp!) + cleanupTimeoutMs;
    const draft = new InstanceStatusDraft(instance, now).phase('Terminating');
    const terminating = (reason: string, message: string): void =>
      void draft.condition({ type: 'Terminating', status: 'True', reason, message });
    let outcome: TeardownOutcome;
    try {
      outcome = await topology.teardown(draft, context);
    } catch (error) {
      terminating(
        now >= deadline ? Reason.CleanupTimedOut : Reason.CleanupError,
        `Backing resource cleanup failed: ${(error as Error).message}`,
      );
      await writeInstanceStatus(this.api, draft);
      throw error;
    }
    if (outcome === 'recorded') {
      await writeInstanceStatus(this.api, draft);
      return {};
    }
    if (outcome === 'pending') {
      if (now >= deadline)
        terminating(
          Reason.CleanupTimedOut,
          `Backing resources are still deleting after ${formatGoDuration(cleanupTimeoutMs)}; the finalizer remains and cleanup will retry`,
        );
      else terminating(Reason.CleanupInProgress, 'Backing resource cleanup is in progress');
      await writeInstanceStatus(this.api, draft);
      return {
        requeueAfterMs:
          now < deadline ? Math.min(deadline - now, teardownResyncMs) : teardownResyncMs,
      };
    }
    const current = await writeInstanceStatus(this.api, draft);
    await this.api.update(INSTANCES, withoutFinalizer(current, FINALIZER_INSTANCE_CLEANUP));
    observeTornDown(this.api, current);
    context.logger.info('Cleaned up ClusterInstance backing resources');
    return {};
  }
}
