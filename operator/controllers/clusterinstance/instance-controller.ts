import { FINALIZER_INSTANCE_CLEANUP } from '../../api/labels.js';
import type { ClusterInstance } from '../../api/resources.js';
import { INSTANCES, NAMESPACES } from '../../api/resources.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import { namespacePolicy } from '../namespace-policy.js';
import { provisioningHistogram } from './instance-metrics.js';
import { readPlatformReadiness } from './platform-readiness.js';
import type { Topology } from './topology.js';
import {
  InstanceFailure,
  InstanceStatusDraft,
  Reason,
  writeInstanceStatus,
} from './instance-status.js';

/** After this long the Terminating condition says CleanupTimedOut; the finalizer stays (spec §2.3.7). */
const CLEANUP_TIMEOUT_MS = 15 * 60_000;
/** Platform operands are not watched: while one is not ready, look again after this long. */
const PLATFORM_RECHECK_MS = 20_000;
/** A slow safety pass while teardown waits on objects that are not watched (launcher pods). */
const TEARDOWN_RESYNC_MS = 60_000;

type ClusterType = ClusterInstance['spec']['type'];

/**
 * The ClusterInstance controller (spec §2.3): finalizer, namespace gate, deletion handling and
 * phases for every topology, and dispatch on spec.type to the topology that builds the guest.
 */
export class InstanceController {
  constructor(
    private readonly manager: Manager,
    private readonly topologies: Partial<Record<ClusterType, Topology>>,
  ) {}

  registration(): ControllerRegistration {
    provisioningHistogram(this.manager);
    const instances = this.manager.informer<ClusterInstance>(INSTANCES);
    return {
      name: 'clusterinstance',
      forType: INSTANCES,
      watches: [
        {
          // The namespace gate: every instance in a namespace whose opt-in changed.
          type: NAMESPACES,
          map: (namespace) =>
            instances
              .list((i) => i.metadata!.namespace === namespace.metadata!.name)
              .map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`),
        },
        ...Object.values(this.topologies).flatMap((t) => t.watches()),
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const instance = this.manager.informer<ClusterInstance>(INSTANCES).get(key);
    const topology = instance && this.topologyOf(instance);
    if (!instance || !topology) return {};
    if (instance.metadata?.deletionTimestamp) return this.finalize(instance, topology, context);
    if (!instance.metadata?.finalizers?.includes(FINALIZER_INSTANCE_CLEANUP)) {
      // The finalizer comes before anything is created; its update event starts the next pass.
      await this.manager.client.update(INSTANCES, {
        ...instance,
        metadata: {
          ...instance.metadata,
          finalizers: [...(instance.metadata?.finalizers ?? []), FINALIZER_INSTANCE_CLEANUP],
        },
      });
      return {};
    }
    if (!(await this.namespaceGate(instance))) return {};
    const platform = await this.platformGate(instance, topology);
    if (platform) return platform;
    try {
      return await topology.reconcile(instance, context);
    } catch (error) {
      if (!(error instanceof InstanceFailure)) throw error;
      // Marked Failed and retried with backoff (spec §2.3: Failed is not terminal); the pool
      // replaces failed instances nobody claims.
      const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
      await writeInstanceStatus(
        this.manager,
        draft.failed(error.reason, error.message, error.conditions),
      );
      context.logger.warn({ reason: error.reason, err: error }, 'ClusterInstance failed');
      throw error;
    }
  }

  /** The topology that builds this instance; none for types not built yet. */
  private topologyOf(instance: ClusterInstance): Topology | undefined {
    return this.topologies[instance.spec.type];
  }

  /**
   * The namespace opt-in (spec §2.5): provisioning starts only once it was allowed, and the
   * authorization is recorded so a later opt-out does not strand work in progress. False stops
   * the pass (the status write or a namespace event brings the next one).
   */
  private async namespaceGate(instance: ClusterInstance): Promise<boolean> {
    const policy = await namespacePolicy(this.manager, instance.metadata!.namespace!);
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
    const allowed = (status: 'True' | 'False', reason: string, message: string): void =>
      void draft.condition({ type: 'ProvisioningAllowed', status, reason, message });
    if (policy.terminating) {
      allowed('False', policy.reason, policy.message);
      await writeInstanceStatus(this.manager, draft);
      return false;
    }
    if (instance.status?.provisioning) return true;
    if (policy.enabled) {
      draft.status.provisioning = {
        startedAt: new Date(this.manager.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
      allowed(
        'True',
        Reason.ProvisioningAuthorized,
        'Provisioning authorization is recorded; namespace opt-out does not revoke existing work',
      );
      draft.phase('Provisioning');
    } else {
      allowed('False', policy.reason, policy.message);
      draft.waiting(policy.reason, policy.message);
    }
    await writeInstanceStatus(this.manager, draft);
    return false;
  }

  /**
   * The platform readiness gate (spec §2.6): HyperConverged, and for hcp the MultiClusterEngine
   * with HyperShift, must be ready before provisioning. Read live; while something is not ready
   * the instance says so and looks again after a while (these operands are not watched: a
   * cluster without them must not keep the manager's caches from syncing). Returns a result to
   * stop the pass with, or undefined to go on.
   */
  private async platformGate(
    instance: ClusterInstance,
    topology: Topology,
  ): Promise<ReconcileResult | undefined> {
    const phase = instance.status?.phase;
    if (phase === 'Failed' || (phase === 'Ready' && !topology.platformGate.whenReady))
      return undefined;
    const verdicts = await readPlatformReadiness(this.manager.client, topology.platformGate);
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
    for (const { type, readiness } of verdicts) {
      draft.condition({
        type,
        status: readiness.ready ? 'True' : 'False',
        reason: readiness.reason,
        message: readiness.message,
      });
    }
    draft.status.observedGeneration = instance.metadata?.generation;
    const failing = verdicts.find((v) => !v.readiness.ready);
    if (failing) {
      draft.waiting(failing.readiness.reason, 'Platform dependencies are not ready');
      await writeInstanceStatus(this.manager, draft);
      return { requeueAfterMs: PLATFORM_RECHECK_MS };
    }
    if (!draft.changed) return undefined;
    // The status event brings the next pass.
    await writeInstanceStatus(this.manager, draft);
    return {};
  }

  /** The deletion handler (spec §2.3.7): teardown, then the finalizer goes. */
  private async finalize(
    instance: ClusterInstance,
    topology: Topology,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    if (!instance.metadata?.finalizers?.includes(FINALIZER_INSTANCE_CLEANUP)) return {};
    const now = this.manager.clock.now();
    const deadline = Date.parse(instance.metadata.deletionTimestamp!) + CLEANUP_TIMEOUT_MS;
    const draft = new InstanceStatusDraft(instance, now).phase('Terminating');
    const terminating = (reason: string, message: string): void =>
      void draft.condition({ type: 'Terminating', status: 'True', reason, message });
    let outcome: 'done' | 'pending' | 'recorded';
    try {
      outcome = await topology.teardown(instance, context);
      if (outcome === 'recorded') return {};
    } catch (error) {
      terminating(
        now >= deadline ? Reason.CleanupTimedOut : Reason.CleanupError,
        `Backing resource cleanup failed: ${(error as Error).message}`,
      );
      await writeInstanceStatus(this.manager, draft);
      throw error;
    }
    if (outcome === 'pending') {
      if (now >= deadline)
        terminating(
          Reason.CleanupTimedOut,
          'Backing resources are still deleting after 15m0s; the finalizer remains and cleanup will retry',
        );
      else terminating(Reason.CleanupInProgress, 'Backing resource cleanup is in progress');
      await writeInstanceStatus(this.manager, draft);
      return {
        requeueAfterMs:
          now < deadline ? Math.min(deadline - now, TEARDOWN_RESYNC_MS) : TEARDOWN_RESYNC_MS,
      };
    }
    const current = await writeInstanceStatus(this.manager, draft);
    await this.manager.client.update(INSTANCES, {
      ...current,
      metadata: {
        ...current.metadata,
        finalizers: current.metadata!.finalizers!.filter((f) => f !== FINALIZER_INSTANCE_CLEANUP),
      },
    });
    context.logger.info('Cleaned up ClusterInstance backing resources');
    return {};
  }
}
