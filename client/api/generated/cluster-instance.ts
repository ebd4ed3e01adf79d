// Generated from crds/clusterinstances.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * Requested topology and template. Fixed once the instance exists: what is provisioned is what was created (a pool makes a new instance for a new template).
 */
export interface ClusterInstanceSpec {
  /**
   * Topology, crc (OpenShift Local in a KubeVirt VM) or hcp (HyperShift hosted control plane with KubeVirt workers).
   */
  type: 'crc' | 'hcp';
  /**
   * How long provisioning may take before the instance is Failed with ProvisioningTimedOut (Go duration, 1m to 24h), counted from status.provisioning.startedAt or from when the platform last became ready, whichever is later. A pool copies its own. Absent: 30m for crc, 45m for hcp.
   */
  provisioningTimeout?: string;
  /**
   * Whether the guest runs (Running, the default) or is kept stopped (Hibernating: a crc VM halted with its disk kept, an hcp NodePool scaled to zero workers). A pool sets it on its unclaimed spares, a lease that resumes a spare sets it back to Running; an instance claimed by a lease runs whatever it says (docs/reference/instances.md#hibernation).
   */
  powerState?: 'Running' | 'Hibernating';
  /**
   * Owning ClusterPool in the same namespace; empty name for standalone instances.
   */
  poolRef?: {
    /**
     * ClusterPool name; empty for standalone instances.
     */
    name?: string;
  };
  /**
   * How each guest cluster is built (ClusterTemplate). Pools copy it into every ClusterInstance they create. crc disk sources, in order of preference: crcVersion (turnkey, a CRCBundle crc-<version>-<arch> is created and reused), crcBundleRef (a named CRCBundle), or releaseImage plus bundleSSHKeyRef (manual: URL of an extracted crc.qcow2). hcp uses releaseImage as the OpenShift release pullspec.
   */
  template: {
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
    ocpVersion: string;
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
 * Observed state of the instance, written by the operator.
 */
export interface ClusterInstanceStatus {
  /**
   * Lifecycle phase (Hibernated is a spare kept stopped, spec.powerState Hibernating). There is no Leased phase; see status.leaseRef.
   */
  phase?: 'Provisioning' | 'Ready' | 'Hibernated' | 'Failed' | 'Terminating';
  /**
   * Observed OpenShift version of the guest.
   */
  ocpVersion?: string;
  /**
   * Copy of spec.type, set when Ready.
   */
  topology?: 'crc' | 'hcp';
  /**
   * Guest API URL, https://<hostname>; recorded before the Route exists and then fixed.
   */
  apiEndpoint?: string;
  /**
   * Secret <instance>-kubeconfig (data keys kubeconfig, ocpVersion) when Ready; cleared when readiness is lost.
   */
  kubeconfigSecretRef?: {
    /**
     * Secret name in the instance namespace.
     */
    name?: string;
  };
  /**
   * SHA-256 (hex) of the kubeconfig the operator published in kubeconfigSecretRef. Lease copies are made only from a Secret that still holds exactly this; one that was changed is rewritten and reported with an Event.
   */
  kubeconfigSHA256?: string;
  /**
   * The ClusterLease that claims this instance. Written by the lease controller with a compare-and-swap before the lease records the binding in its status.instanceRef (the record that CI reads), so two managers can never give one instance to two leases.
   */
  leaseRef?: {
    /**
     * ClusterLease name in the instance namespace.
     */
    name?: string;
    /**
     * UID of that ClusterLease, so a claim by a deleted and re-created lease of the same name is recognised as stale.
     */
    uid?: string;
  };
  /**
   * crc backing resources.
   */
  crc?: {
    /**
     * KubeVirt VirtualMachine name.
     */
    vmName?: string;
    /**
     * UID of the VirtualMachine, to verify dependents during teardown.
     */
    vmUID?: string;
    /**
     * CDI DataVolume (root disk) name.
     */
    dataVolumeName?: string;
    /**
     * UID of the DataVolume, to verify dependents during teardown.
     */
    dataVolumeUID?: string;
    /**
     * The root disk's progress as CDI last reported it while it fills, and since when it has not moved (instance.dataVolumeStallDeadline); removed once filled.
     */
    diskProgress?: {
      /**
       * CDI's status.progress, for example 42.50%.
       */
      progress: string;
      /**
       * When this progress was first seen.
       */
      since: string;
    };
    /**
     * Address of the VMI used for SSH (the IP only).
     */
    sshEndpoint?: string;
    /**
     * UID of the VMI for which the crc-agent handoff was done.
     */
    vmiUID?: string;
    /**
     * The guest's SSH host key as the crc-agent found it on first contact with this VMI; later agent runs for the same VMI refuse any other key.
     */
    sshHostKey?: {
      /**
       * UID of the VMI the key was seen on.
       */
      vmiUID: string;
      /**
       * The host key, as an OpenSSH public key line (type and base64 data).
       */
      publicKey: string;
    };
    /**
     * Identity of the bundle disk and SSH key the instance boots with; set once, before the DataVolume is created.
     */
    bootKey?: {
      /**
       * UID of the CRCBundle.
       */
      bundleUID: string;
      /**
       * Checksum recorded by the CRCBundle.
       */
      bundleSHA256: string;
      /**
       * Namespace of the golden PVC.
       */
      pvcNamespace: string;
      /**
       * Name of the golden PVC.
       */
      pvcName: string;
      /**
       * UID of the golden PVC.
       */
      pvcUID: string;
      /**
       * Namespace of the bundle SSH key Secret.
       */
      secretNamespace: string;
      /**
       * Name of the bundle SSH key Secret.
       */
      secretName: string;
      /**
       * UID of the bundle SSH key Secret.
       */
      secretUID: string;
      /**
       * SHA-256 (hex) of the private key bytes.
       */
      keySHA256: string;
      /**
       * StorageClass of the golden PVC, used for the clone.
       */
      storageClassName?: string;
      /**
       * The versioned KubeVirt VM profile the bundle was built for (its status.build.profile), which the VM is made with; unset for a downloaded bundle, whose VM keeps KubeVirt's defaults.
       */
      vmProfile?: string;
    };
  };
  /**
   * hcp backing resources.
   */
  hyperShift?: {
    /**
     * HostedCluster name.
     */
    hostedClusterName?: string;
    /**
     * HostedCluster namespace (the instance namespace; legacy clusters).
     */
    hostedClusterNamespace?: string;
    /**
     * NodePool names.
     */
    nodePoolNames?: string[];
  };
  /**
   * The last check of the guest's readiness gates, written by the operator while the instance is Ready; its result is the GuestHealthy condition.
   */
  guestHealth?: {
    /**
     * When the gates were last checked. A lease binds only a guest checked recently.
     */
    checkedAt?: string;
    /**
     * The earliest expiry of the certificates a lease relies on (the guest API's serving certificate, its CA and the client certificate of the published kubeconfig).
     */
    certificatesNotAfter?: string;
  };
  /**
   * When the guest was last stopped and resumed (docs/reference/instances.md#hibernation).
   */
  hibernation?: {
    /**
     * When the guest was last asked to stop (spec.powerState Hibernating).
     */
    hibernatedAt?: string;
    /**
     * When the last resume started; a resume has the provisioning timeout from then, and the guest's readiness gates must be checked again after it.
     */
    resumeStartedAt?: string;
    /**
     * When the last resume ended with the instance Ready.
     */
    resumedAt?: string;
  };
  /**
   * When provisioning times out (spec.provisioningTimeout) unless the instance is Ready by then; present while it provisions for the first time.
   */
  provisioningDeadline?: string;
  /**
   * When the instance first became Ready. From then on no provisioning deadline applies: a guest that loses readiness later is a readiness problem.
   */
  firstReadyAt?: string;
  /**
   * Durable authorization to provision, recorded when the namespace allowed it; a later opt-out does not revoke it. For an instance of a pool (spec.poolRef) only the pool controller records it, right after it created the instance: it is what makes the instance the pool's (tenants cannot write status).
   */
  provisioning?: {
    /**
     * When provisioning was authorized.
     */
    startedAt: string;
    /**
     * The ClusterPool that created the instance and recorded the authorization; absent for one authorized by the instance controller.
     */
    pool?: string;
    /**
     * True when the authorization was granted because provisioning had already started before the namespace policy existed.
     */
    legacy?: boolean;
  };
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Conditions: Ready (True BackingResourcesAvailable once the kubeconfig Secret is available; False with the reason that blocks provisioning), VersionMismatch, GuestAPIReachable (crc), CRCAgent (crc agent Job diagnostics), Terminating, ProvisioningAllowed (namespace opt-in), HyperConvergedReady and MultiClusterEngineReady (platform readiness).
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

/** ClusterInstance is one guest OpenShift cluster: crc (OpenShift Local in a KubeVirt VM cloned from a CRC bundle disk) or hcp (a HyperShift HostedCluster with KubeVirt workers). Pools create them; a standalone instance can be created directly. When Ready, the Secret <name>-kubeconfig holds its kubeconfig. */
export interface ClusterInstance {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'ClusterInstance';
  metadata?: ObjectMeta;
  spec: ClusterInstanceSpec;
  status?: ClusterInstanceStatus;
}

/** How to address ClusterInstance objects on the API. */
export const CLUSTER_INSTANCE_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  plural: 'clusterinstances',
  namespaced: true,
} as const;
