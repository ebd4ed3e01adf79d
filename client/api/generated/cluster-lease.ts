// Generated from crds/clusterleases.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * Which pool to draw from, for how long, and for whom.
 */
export interface ClusterLeaseSpec {
  /**
   * ClusterPool in the same namespace; its type decides the topology. Fixed once the lease exists: the pool's limits are checked against the pool the lease was made for.
   */
  poolRef: {
    /**
     * ClusterPool name.
     */
    name: string;
  };
  /**
   * Time to live as a Go duration (for example 2h, 90m, 1h30m), counted from status.boundTime; at the deadline the lease is deleted and its cluster released. Absent or 0 means no TTL. At most 8760h (365 days).
   */
  ttl?: string;
  /**
   * Free-form audit note naming who asked for the cluster, for example a CI job.
   */
  requestedBy?: string;
  /**
   * The OpenShift version the cluster must have: a minor such as 4.19 takes any 4.19.z, an exact version such as 4.19.7 only itself. The lease binds only to an instance of a matching version, first come first served among the leases that can take it; while no instance of its pool has or will get such a version, it waits with reason VersionUnavailable. Unset: any version.
   */
  ocpVersion?: string;
  /**
   * Who may read the lease's kubeconfig Secret (RBAC subjects). The operator creates a Role with get on exactly <lease>-kubeconfig and a RoleBinding to these subjects, both owned by the lease; they go with it. Unset: no Role is made, and only those who can read Secrets of the namespace already can read it. The GitHub Action fills in its own identity.
   *
   * @maxItems 32
   */
  subjects?: {
    /**
     * User, Group or ServiceAccount.
     */
    kind: 'User' | 'Group' | 'ServiceAccount';
    /**
     * The user, group or ServiceAccount name.
     */
    name: string;
    /**
     * ServiceAccount only; the lease's namespace when unset.
     */
    namespace?: string;
  }[];
}

/**
 * Observed state of the lease, written by the operator.
 */
export interface ClusterLeaseStatus {
  /**
   * Pending (waiting; see queuePosition and the Ready condition's reason, such as PoolNotFound), Bound (instanceRef and kubeconfigSecretRef are set), NotReady (bound, but the instance has not been Ready for longer than a grace period; Bound again once it is), Lost (the bound instance is gone, being deleted, or replaced by another object of its name; final: the lease never binds again, delete it), Failed (can never bind; see the Ready condition's reason). The legacy phases Releasing and Released, which nothing writes, are no longer accepted; a lease stored with one is still handled (Releasing: deleted; Released: left alone).
   */
  phase?: 'Pending' | 'Bound' | 'NotReady' | 'Lost' | 'Failed';
  /**
   * The bound ClusterInstance in the lease namespace; the single record of the binding, written once together with phase Bound.
   */
  instanceRef?: {
    /**
     * ClusterInstance name.
     */
    name?: string;
    /**
     * UID of that ClusterInstance, so that another object created later under its name is never taken for it.
     */
    uid?: string;
  };
  /**
   * Secret <lease>-kubeconfig in the lease namespace, data keys kubeconfig and ocpVersion; owned by the lease.
   */
  kubeconfigSecretRef?: {
    /**
     * Secret name.
     */
    name?: string;
  };
  /**
   * OpenShift version of the bound instance, copied at bind time.
   */
  ocpVersion?: string;
  /**
   * Topology of the bound instance.
   */
  topology?: 'crc' | 'hcp';
  /**
   * Guest API URL of the bound instance.
   */
  apiEndpoint?: string;
  /**
   * When the lease was bound; the TTL counts from here.
   */
  boundTime?: string;
  /**
   * When the lease is released: boundTime + spec.ttl, as last accepted. A TTL change beyond what the pool allows is not taken (condition TTLAccepted False), and the lease keeps this deadline. Absent when no TTL applies.
   */
  expiresAt?: string;
  /**
   * When the operator first saw the bound lease labelled guestcluster.opdev.io/held=true. A hold counts from here and is not renewed by labelling the lease again.
   */
  heldAt?: string;
  /**
   * While Pending, the 1-based position among the pool's pending leases in creation-time (FIFO) order; 1 binds next. Absent otherwise.
   */
  queuePosition?: number;
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Conditions: Bound (True InstanceBound; False WaitingForCapacity, PoolNotFound, PoolDeleting, NamespaceTerminating, NamespaceUnavailable, VersionUnavailable, TTLRequired, TTLAbovePoolLimit, HeldBeforeBinding, or InstanceLost once the bound instance is lost) and Ready (True when Bound, so kubectl wait --for=condition=Ready works; False with the waiting reason, InstanceNotReady, InstanceLost, or the reason the lease Failed, such as InvalidSpec or KubeconfigSecretConflict); ExpiringSoon near the deadline; TTLAccepted False when a TTL change was beyond the pool's limits and not taken.
   *
   * Items: One condition (metav1.Condition).
   */
  conditions?: {
    /**
     * Condition type in CamelCase, for example Ready. Unique within the list.
     */
    type: string;
    /**
     * Status of the condition, one of True, False, Unknown.
     */
    status: 'True' | 'False' | 'Unknown';
    /**
     * metadata.generation of the object that the condition was set from.
     */
    observedGeneration?: number;
    /**
     * Last time the condition's status changed (not its reason or message).
     */
    lastTransitionTime: string;
    /**
     * Machine-readable CamelCase reason for the last status or reason change.
     */
    reason: string;
    /**
     * Human-readable details; may be empty.
     */
    message: string;
  }[];
}

/** ClusterLease asks a ClusterPool in the same namespace for one guest cluster. When Bound, status.kubeconfigSecretRef names a Secret whose data.kubeconfig reaches the cluster. Deleting the lease releases the cluster (its instance is deleted and the pool tops up). */
export interface ClusterLease {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'ClusterLease';
  metadata?: ObjectMeta;
  spec: ClusterLeaseSpec;
  status?: ClusterLeaseStatus;
}

/** How to address ClusterLease objects on the API. */
export const CLUSTER_LEASE_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  plural: 'clusterleases',
  namespaced: true,
} as const;
