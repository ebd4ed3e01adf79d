// Generated from crds/clusterpools.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * Desired pool size and the template of its instances.
 */
export interface ClusterPoolSpec {
  /**
   * Topology of every instance, crc (OpenShift Local in a KubeVirt VM) or hcp (HyperShift hosted control plane with KubeVirt workers).
   */
  type: 'crc' | 'hcp';
  /**
   * Hard cap on instances present in the API, including Failed and terminating ones.
   */
  maxSize: number;
  /**
   * Floor on the total number of instances (any state). At most maxSize.
   */
  minSize?: number;
  /**
   * Floor on instances that are Ready, hibernated (spec.hibernation) or still provisioning, and not claimed by a lease. At most maxSize.
   */
  warmSpares?: number;
  /**
   * Keeps spares stopped instead of running (docs/reference/kinds.md#hibernation): runningSpares of the unclaimed Ready spares stay running, and a running spare idle for hibernateAfter is hibernated while more than that run. A lease takes a running spare first, else resumes a hibernated one. Hibernated spares count towards warmSpares. Absent: every spare runs.
   */
  hibernation?: {
    /**
     * How many unclaimed, Ready spares stay running. At most maxSize.
     */
    runningSpares?: number;
    /**
     * How long a running spare stays idle (since it became Ready or was resumed) before it is hibernated (Go duration, 1m to 8760h), for example 30m.
     */
    hibernateAfter: string;
  };
  /**
   * Adaptive warm spares (docs/reference/kinds.md#adaptive-warm-spares): the pool keeps the spares its observed demand needs, between minSpares and maxSpares, instead of the constant warmSpares, which it then ignores.
   */
  autoscaling?: {
    /**
     * Fewest spares, whatever the demand. Default 0.
     */
    minSpares?: number;
    /**
     * Most spares the policy asks for. At most maxSize.
     */
    maxSpares: number;
    /**
     * The chance, in percent, that the spares run out within one provisioning time (above 0, below 100). Default 5.
     */
    targetRunOutPercent?: number;
    /**
     * How long the target must stay below the spares before they step down, halfway each time (Go duration, at most 24h). Default 15m.
     */
    scaleDownDelay?: string;
  };
  /**
   * Spare targets by weekday and time of day in timeZone (docs/reference/kinds.md#spare-schedules). The first rule whose window holds the moment applies: its warmSpares replace spec.warmSpares, or, for an autoscaled pool, spec.autoscaling.minSpares. When no rule applies, the pool's own fields do.
   */
  schedule?: {
    /**
     * An IANA time zone name, for example Europe/Berlin or UTC. A name the operator does not know leaves the schedule unused, with the condition ScheduleValid False InvalidTimeZone.
     */
    timeZone: string;
    /**
     * @maxItems 32
     *
     * Items: A weekly window, for example {days: [Mon, Tue, Wed, Thu, Fri], from: "08:00", to: "18:00", warmSpares: 4}.
     */
    rules: {
      /**
       * The weekdays of the window (a set, so at most the seven).
       */
      days: ('Mon' | 'Tue' | 'Wed' | 'Thu' | 'Fri' | 'Sat' | 'Sun')[];
      /**
       * Start of the window, HH:MM (24-hour clock) in timeZone, included.
       */
      from: string;
      /**
       * End of the window, HH:MM in timeZone (24:00 for midnight), excluded.
       */
      to: string;
      /**
       * The spares of the window. At most maxSize (and spec.autoscaling.maxSpares).
       */
      warmSpares: number;
    }[];
  };
  /**
   * The longest spec.ttl a lease of this pool may have (Go duration, for example 8h), counted from binding as the TTL is. Admission refuses a lease created or extended beyond it, and one without a TTL. Absent: leases may have any TTL up to 8760h, or none.
   */
  maxLeaseDuration?: string;
  /**
   * How long a new instance of this pool may take to become Ready (Go duration, 1m to 24h), counted from when provisioning started or the platform last became ready, whichever is later. An instance still provisioning then is Failed with ProvisioningTimedOut, naming what it waited for, and replaced. Copied into each instance the pool creates; a change applies to instances created after it. Absent: 30m for crc, 45m for hcp.
   */
  provisioningTimeout?: string;
  /**
   * The readiness gates a guest passes before a lease gets it (docs/reference/instances.md#guest-health).
   */
  guestHealth?: {
    /**
     * ClusterOperators whose Available and Degraded conditions do not keep a guest of this pool from being handed out (for example an operator the pool's CI never uses that is known to report Degraded on this topology).
     *
     * @maxItems 64
     */
    ignoreOperators?: string[];
  };
  /**
   * The longest a failed CI job may keep its cluster for debugging (the Action's hold-on-failure), beyond maxLeaseDuration: a lease labelled guestcluster.opdev.io/held may have a TTL of up to maxLeaseDuration plus this. Absent: a hold must fit within maxLeaseDuration.
   */
  maxHoldDuration?: string;
  /**
   * How each guest cluster is built (ClusterTemplate). Pools copy it into every ClusterInstance they create. crc disk sources, in order of preference: crcVersion (turnkey, a CRCBundle crc-<version>-<arch> is created and reused), crcBundleRef (a named CRCBundle), or releaseImage plus bundleSSHKeyRef (manual: URL of an extracted crc.qcow2). hcp uses releaseImage as the OpenShift release pullspec. With versionStreamRef instead, the stream chooses the release (and ocpVersion) of each new instance.
   */
  template: {
    /**
     * The cluster-scoped VersionStream the pool follows: new instances get its current release (hcp: status.releaseImage; crc: the CRCBundle of status.crcBundleVersion, created as for crcVersion) and its resolvedVersion as ocpVersion. When the stream moves, unclaimed Ready spares of the old version are replaced one at a time. Mutually exclusive with releaseImage, crcVersion, crcBundleRef and ocpVersion.
     */
    versionStreamRef?: {
      /**
       * Name of the VersionStream.
       */
      name: string;
    };
    /**
     * crc only, turnkey path: CRC bundle version, for example 4.16.0. The pool creates (or reuses) the cluster-scoped CRCBundle crc-<crcVersion>-<arch> and instances clone its golden disk; releaseImage and bundleSSHKeyRef are then ignored. Ignored for hcp. Mutually exclusive with crcBundleRef.
     */
    crcVersion?: string;
    /**
     * crc only: the cluster-scoped CRCBundle (download or in-cluster build) whose golden disk instances clone. Mutually exclusive with crcVersion; releaseImage and bundleSSHKeyRef are then ignored.
     */
    crcBundleRef?: {
      /**
       * Name of the CRCBundle.
       */
      name: string;
    };
    /**
     * crc only, turnkey path. CPU architecture of the CRC bundle; unset means amd64.
     */
    crcArch?: 'amd64' | 'arm64';
    /**
     * crc manual path (no crcVersion, no crcBundleRef): http(s) URL of an extracted crc.qcow2, imported by CDI; needs bundleSSHKeyRef. hcp (required): OpenShift release image pullspec for the HostedCluster and NodePool.
     */
    releaseImage?: string;
    /**
     * Expected OpenShift version, for example 4.16.10. Compared with the observed guest version (condition VersionMismatch).
     */
    ocpVersion?: string;
    /**
     * hcp only. Worker replicas of the NodePool; 1 when unset.
     */
    nodePoolReplicas?: number;
    /**
     * hcp only. HostedCluster control-plane availability; only used when the HostedCluster is created.
     */
    controllerAvailabilityPolicy?: 'SingleReplica' | 'HighlyAvailable';
    /**
     * Memory per VM (the CRC VM, or each hcp worker) as a Kubernetes quantity, for example 16Gi.
     */
    memory: string;
    /**
     * vCPUs per VM (the CRC VM, or each hcp worker).
     */
    cores: number;
    /**
     * Root volume size as a Kubernetes quantity; 80Gi (crc) or 32Gi (hcp) when unset. A crc clone of a CRCBundle's golden disk is raised to at least the disk's virtual size and the golden PVC's request (35Gi unless the bundle's goldenVolumeSize says otherwise): CDI refuses a clone target smaller than its source, and adds its filesystem overhead (5.5%) on top for Filesystem volumes.
     */
    rootVolumeSize?: string;
    /**
     * Secret in the instance namespace with data key .dockerconfigjson. An empty or missing name means the Secret named pull-secret.
     */
    pullSecretRef?: {
      /**
       * Secret name; empty means pull-secret.
       */
      name?: string;
    };
    /**
     * Placeholder for an ImageDigestMirrorSet reference (hcp sets empty imageContentSources); not otherwise used.
     */
    idmsRef?: {
      /**
       * Name of the referenced object.
       */
      name: string;
    };
    /**
     * crc manual path only (required there): Secret in the instance namespace holding the CRC bundle's private SSH key under data key id_ecdsa, ssh-privatekey or id_rsa (first non-empty wins).
     */
    bundleSSHKeyRef?: {
      /**
       * Secret name.
       */
      name: string;
    };
    /**
     * hcp only. Secret in the instance namespace with the workers' public SSH key under data key id_rsa.pub.
     */
    hcpWorkerSSHKeyRef?: {
      /**
       * Secret name.
       */
      name: string;
    };
    /**
     * Node selector for the CRC VM or the hcp worker VMs.
     */
    vmNodeSelector?: {
      [k: string]: string;
    };
    /**
     * StorageClass of the VM root volumes (also given to a CRCBundle that a crcVersion pool creates). Unset or empty means the cluster default.
     */
    storageClassName?: string;
  };
}

/**
 * Observed state of the pool, written by the operator.
 */
export interface ClusterPoolStatus {
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Every ClusterInstance of the pool still present in the API, including Failed and deleting ones.
   */
  totalInstances?: number;
  /**
   * Instances with a deletion timestamp.
   */
  terminatingInstances?: number;
  /**
   * Ready, not deleting, not claimed by any lease.
   */
  availableInstances?: number;
  /**
   * Ready, not deleting, claimed by a lease.
   */
  leasedInstances?: number;
  /**
   * Hibernated, not deleting, not claimed by any lease (spec.hibernation).
   */
  hibernatedInstances?: number;
  /**
   * The OpenShift version new instances get: the resolvedVersion of the VersionStream the pool follows, else spec.template.ocpVersion. Leases asking for a version (spec.ocpVersion) are compared with it.
   */
  version?: string;
  /**
   * The spares the pool keeps now, for a pool with spec.autoscaling or spec.schedule, and why.
   */
  autoscaling?: {
    /**
     * The spares the pool keeps now, in place of spec.warmSpares.
     */
    desiredSpares?: number;
    /**
     * For an autoscaled pool with spec.hibernation, how many of desiredSpares run (the rest are hibernated): enough to cover one resume time, at least spec.hibernation.runningSpares.
     */
    runningSpares?: number;
    /**
     * The numbers the decision came from, for example "12 spares, 0.88 leases/min lately × 15 min provisioning, +4 for bursts (5% run-out)".
     */
    reason?: string;
    /**
     * When desiredSpares last changed.
     */
    lastChangeTime?: string;
  };
  /**
   * Conditions: CapacityAvailable (True CapacitySufficient; False MaxSizeTooSmall or AtCapacity), ProvisioningAllowed (True NamespaceEnabled; False NamespaceDisabled, NamespaceTerminating, NamespaceUnavailable), a condition that reports when provisioning keeps failing and why, NamesAvailable (False NameTaken when objects the pool does not own hold names it skips), Terminating (True WaitingForLeases while a deleted pool waits for its leases to release their instances), and, for a pool that follows a VersionStream, VersionStreamResolved (False VersionStreamNotFound or VersionStreamNotResolved: no instance is created) and AllInstancesCurrent (True AllCurrent; False StaleInstances, with how many unclaimed instances have another version); for an autoscaled pool DemandHistoryUsable (False HistoryRefused or HistoryNameTaken), for a pool with a schedule ScheduleValid (False InvalidTimeZone).
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

/** ClusterPool keeps guest OpenShift clusters (ClusterInstances) of one topology ready in its namespace: at least minSize in total, at least warmSpares Ready and unclaimed, plus one per pending ClusterLease, never more than maxSize. New capacity needs the namespace label guestcluster.opdev.io/enabled="true". */
export interface ClusterPool {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'ClusterPool';
  metadata?: ObjectMeta;
  spec: ClusterPoolSpec;
  status?: ClusterPoolStatus;
}

/** How to address ClusterPool objects on the API. */
export const CLUSTER_POOL_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterPool',
  plural: 'clusterpools',
  namespaced: true,
} as const;
