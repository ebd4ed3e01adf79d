import type { ClusterInstance } from '../../api/resources.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { WatchSpec } from '../../runtime/manager.js';

/**
 * One way of building a guest cluster (spec.type). The instance controller owns what every
 * topology shares (finalizer, namespace gate, phases, deletion); a topology builds and tears down
 * its backing objects and says which kinds it watches. A type without a topology is left alone.
 */
export interface Topology {
  /**
   * The platform readiness gate (spec §2.6): whether the MultiClusterEngine (HyperShift) and a
   * router that admits wildcard Routes are needed besides HyperConverged, and whether the gate
   * still applies once the instance is Ready.
   */
  readonly platformGate: {
    multiClusterEngine: boolean;
    wildcardRoutes: boolean;
    whenReady: boolean;
  };
  /** Provisioning and Ready handling of an authorized, not deleting instance. */
  reconcile(instance: ClusterInstance, context: ReconcileContext): Promise<ReconcileResult>;
  /**
   * Deletes the backing objects; 'pending' while some are still going away; 'recorded' when it
   * wrote the instance's status first (what it must know to verify dependents), whose event
   * brings the next pass.
   */
  teardown(
    instance: ClusterInstance,
    context: ReconcileContext,
  ): Promise<'done' | 'pending' | 'recorded'>;
  /** Kinds whose events concern instances of this topology, mapped to instance keys. */
  watches(): WatchSpec[];
}
