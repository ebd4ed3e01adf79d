import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import type { InstanceStatusDraft } from './status-draft.js';

/**
 * What a topology's teardown pass came to; `recorded`: the draft holds what must be durable first.
 */
export type TeardownOutcome = 'done' | 'pending' | 'recorded';

/**
 * One way of building a guest cluster (spec.type). The instance controller owns what every
 * topology shares (finalizer, namespace and platform gates, phases, deletion, the one status
 * write of a pass); a topology builds and tears down its backing objects, adding what it finds
 * to the pass's draft, and says which kinds it watches. A type without a topology is left alone.
 */
export interface Topology {
  /**
   * The platform readiness gate (docs/reference/instances.md#platform-gate): whether the
   * MultiClusterEngine (HyperShift) and a router that admits wildcard Routes are needed besides
   * HyperConverged, and whether the gate still applies once the instance is Ready.
   */
  readonly platformGate: {
    multiClusterEngine: boolean;
    wildcardRoutes: boolean;
    whenReady: boolean;
  };
  /**
   * One pass over an authorized, not deleting instance (`draft.instance`): its steps in order,
   * their verdict in the draft, which the controller writes once the pass returns.
   */
  reconcile(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult>;
  /**
   * One pass over an instance to be stopped (core/hibernation.ts, wantsHibernation): the guest
   * stopped with its disk and identity kept, what belonged to the running guest removed, and the
   * progress in the draft (recordHibernation). The next pass that wants it running resumes it
   * through `reconcile`.
   */
  hibernate(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult>;
  /**
   * Deletes the backing objects; `pending` while some are still going away; `recorded` when the
   * draft got what teardown must know durably to verify dependents (the write's event brings
   * the next pass).
   */
  teardown(draft: InstanceStatusDraft, context: ReconcileContext): Promise<TeardownOutcome>;
  /** Kinds whose events concern instances of this topology, mapped to instance keys. */
  watches(): WatchSpec[];
}
