// Generated from crds/crcbundles.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * The bundle source: the download fields (version, bundleURL, sha256URL) or build, never both; plus the shared arch, storageClassName and goldenVolumeSize, and which namespaces may use the bundle (consumers).
 */
export interface CRCBundleSpec {
  /**
   * Download source (required there): published CRC bundle version, for example 4.16.0. The bundle comes from the OpenShift mirror unless bundleURL overrides it.
   */
  version?: string;
  /**
   * CPU architecture of the bundle.
   */
  arch?: 'amd64' | 'arm64';
  /**
   * Download source: http(s) URL of the .crcbundle archive. Default https://mirror.openshift.com/pub/openshift-v4/clients/crc/bundles/openshift/<version>/crc_libvirt_<version>_<arch>.crcbundle.
   */
  bundleURL?: string;
  /**
   * Download source: http(s) URL of the sha256sum.txt listing the archive's checksum. Default https://mirror.openshift.com/pub/openshift-v4/clients/crc/bundles/openshift/<version>/sha256sum.txt.
   */
  sha256URL?: string;
  /**
   * StorageClass of the golden and working PVCs; unset or empty means the cluster default.
   */
  storageClassName?: string;
  /**
   * Size of the golden PVC as a Kubernetes quantity. Default 35Gi (download); for a build, spec.build.vm.diskSize plus filesystem overhead.
   */
  goldenVolumeSize?: string;
  /**
   * Which namespaces may use this bundle: the pools and crc instances whose crcBundleRef, crcVersion or followed VersionStream leads to it. Unset: every namespace that opted in (guestcluster.opdev.io/enabled: "true"). A pool or instance of another namespace gets the condition reason CRCBundleNotAllowed and an Event, and nothing is cloned for it; instances that have their disk already keep it.
   */
  consumers?: {
    /**
     * A label selector over Namespaces (matchLabels and matchExpressions, as in a NetworkPolicy); an empty selector selects every namespace.
     */
    namespaceSelector?: {
      /**
       * Labels a namespace must have, key and value.
       */
      matchLabels?: {
        [k: string]: string;
      };
      /**
       * Requirements on a namespace's labels, all of which must hold.
       *
       * @maxItems 32
       */
      matchExpressions?: {
        /**
         * The label key.
         */
        key: string;
        /**
         * In, NotIn, Exists or DoesNotExist.
         */
        operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
        /**
         * The label values, for In and NotIn.
         *
         * @maxItems 64
         */
        values?: string[];
      }[];
    };
  };
  /**
   * Build source: install a single-node OpenShift from a release image in a KubeVirt VM, seal it the way CRC's snc does, and capture its disk. Immutable: a changed recipe is a new CRCBundle. Needs nodes with /dev/kvm, KubeVirt and CDI.
   */
  build?: {
    /**
     * OpenShift release image, pinned by digest, for example quay.io/openshift-release-dev/ocp-release@sha256:<64 hex>.
     */
    releaseImage: string;
    /**
     * Secret in the operator's namespace with data key .dockerconfigjson, used to pull the release during the build. It is removed from the guest before the disk is sealed. Like every object a bundle refers to, it lives in the operator's namespace: a CRCBundle is cluster-scoped, and reads no other namespace.
     */
    pullSecretRef: {
      /**
       * Secret name.
       */
      name: string;
    };
    /**
     * The versioned KubeVirt VM profile (firmware, networking and clock settings) of the build VM and of every VM that boots the bundle; recorded in status. crc-kubevirt-v1 is the first.
     */
    profile?: 'crc-kubevirt-v1';
    /**
     * How certificates are handled. Enabled (snc's default): install one day in the past (installer VM and VM clock offset), then rotate into 30-day certificates before sealing. Disabled: no time shift; the bundle keeps short-lived certificates that the consumer renews at start (also for releases patched for long-lived certificates).
     */
    certificateRotation?: 'Enabled' | 'Disabled';
    /**
     * Extra manifests added to the installer's directory before the ignition is generated (like snc's MachineConfigs): ConfigMaps or Secrets in the operator's namespace. Every data key of each object is one manifest file, applied in key order.
     *
     * @maxItems 32
     */
    installationManifestRefs?: {
      /**
       * Kind of the object holding the manifests, ConfigMap or Secret.
       */
      kind?: 'ConfigMap' | 'Secret';
      /**
       * Object name.
       */
      name: string;
    }[];
    /**
     * Extra manifests applied in the guest (oc apply) after the install has settled and before the disk is sealed: ConfigMaps or Secrets in the operator's namespace. Every data key of each object is one manifest file, applied in key order.
     *
     * @maxItems 32
     */
    postInstallManifestRefs?: {
      /**
       * Kind of the object holding the manifests, ConfigMap or Secret.
       */
      kind?: 'ConfigMap' | 'Secret';
      /**
       * Object name.
       */
      name: string;
    }[];
    /**
     * Size of the build VM, which becomes the bundle's node.
     */
    vm?: {
      /**
       * vCPUs of the build VM.
       */
      cores?: number;
      /**
       * Memory of the build VM as a Kubernetes quantity.
       */
      memory?: string;
      /**
       * Root disk size of the build VM (the bundle's virtual disk size) as a Kubernetes quantity.
       */
      diskSize?: string;
    };
    /**
     * Node selector for the build VMs and Jobs; the VMs need nodes with /dev/kvm.
     */
    nodeSelector?: {
      [k: string]: string;
    };
    /**
     * Tolerations for the build VMs and Jobs.
     *
     * @maxItems 32
     *
     * Items: A core/v1 Toleration.
     */
    tolerations?: {
      /**
       * Taint key to tolerate; empty with operator Exists matches every taint.
       */
      key?: string;
      /**
       * Exists or Equal (default Equal).
       */
      operator?: string;
      /**
       * Taint value to match with operator Equal.
       */
      value?: string;
      /**
       * Taint effect to match; empty matches all effects.
       */
      effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
      /**
       * For NoExecute, how long the pod stays bound after the taint appears.
       */
      tolerationSeconds?: number;
    }[];
    /**
     * Deadline for the whole build, in seconds from its start (status.build.startedAt). Past it the build stops and the bundle fails with reason BuildTimedOut, naming the stage it was in. Default 14400 (4 h); the install wait alone may take 90 minutes.
     */
    deadlineSeconds?: number;
  };
}

/**
 * Observed state of the bundle, written by the operator.
 */
export interface CRCBundleStatus {
  /**
   * Pending, Preparing (downloading or building), Ready or Failed.
   */
  phase?: string;
  /**
   * Golden PVC holding the raw disk.img, in status.qcow2PVCNamespace.
   */
  qcow2PVCRef?: {
    /**
     * PVC name.
     */
    name?: string;
  };
  /**
   * Namespace of the golden PVC and the SSH key Secret (the operator namespace).
   */
  qcow2PVCNamespace?: string;
  /**
   * Secret in status.qcow2PVCNamespace with the bundle's private SSH key under data key id_ecdsa.
   */
  sshKeySecretRef?: {
    /**
     * Secret name.
     */
    name?: string;
  };
  /**
   * OpenShift version inside the bundle.
   */
  ocpVersion?: string;
  /**
   * Verified SHA-256 of the downloaded .crcbundle archive (download source).
   */
  sha256?: string;
  /**
   * SHA-256 (hex) of the golden raw disk.img.
   */
  diskSHA256?: string;
  /**
   * Virtual size of the golden disk in bytes; instance root volumes must be at least this large.
   */
  diskVirtualSizeBytes?: number;
  /**
   * Build source only. What the build used and where it is.
   */
  build?: {
    /**
     * Digest (sha256:<hex>) of the release image that was built.
     */
    releaseDigest?: string;
    /**
     * The VM profile the build used (spec.build.profile), which every VM of the bundle boots with.
     */
    profile?: string;
    /**
     * The build VM as it ran.
     */
    vmProfile?: {
      /**
       * vCPUs.
       */
      cores?: number;
      /**
       * Memory (quantity).
       */
      memory?: string;
      /**
       * Root disk size (quantity).
       */
      diskSize?: string;
      /**
       * Firmware the VM booted with, for example EFI or BIOS.
       */
      firmware?: string;
    };
    /**
     * Digest of every referenced input (pull secret and manifest objects) as read for the build.
     */
    inputs?: {
      /**
       * PullSecret, InstallationManifest or PostInstallManifest.
       */
      role?: string;
      /**
       * Secret or ConfigMap.
       */
      kind: string;
      /**
       * Object namespace.
       */
      namespace: string;
      /**
       * Object name.
       */
      name: string;
      /**
       * resourceVersion that was read.
       */
      resourceVersion?: string;
      /**
       * SHA-256 (hex) over the object's data keys and values in key order.
       */
      sha256: string;
    }[];
    /**
     * Current or last build stage.
     */
    stage?: string;
    /**
     * When the build started; spec.build.deadlineSeconds counts from here.
     */
    startedAt?: string;
    /**
     * When the build finished (Ready or Failed).
     */
    completedAt?: string;
    /**
     * The build attempt, recorded before anything is created for it; every object and Job of the build carries it in its name. A restarted operator goes on with this attempt.
     */
    attempt?: string;
    /**
     * Every object the build created, recorded with its UID before it is used: an object of that name with another UID is not the build's (it was replaced), and the stage that uses it repeats or the build fails.
     *
     * @maxItems 64
     */
    objects?: {
      /**
       * What the object is to the build, for example TargetVM, TargetVMI, RootDisk or ValidationInstance.
       */
      role: string;
      /**
       * Object kind.
       */
      kind: string;
      /**
       * Object namespace (the operator namespace).
       */
      namespace?: string;
      /**
       * Object name.
       */
      name: string;
      /**
       * Object UID; empty while the object is being created.
       */
      uid?: string;
    }[];
    /**
     * The agent steps that completed, with the Job and VMI each ran against and its outputs.
     *
     * @maxItems 32
     */
    steps?: {
      /**
       * Agent step (crc-agent bundle-build <step>).
       */
      name: string;
      /**
       * The Job that ran it.
       */
      jobName?: string;
      /**
       * UID of that Job.
       */
      jobUID?: string;
      /**
       * The VMI the step talked to; empty for a step with no guest.
       */
      vmiUID?: string;
      /**
       * When the step's Job completed.
       */
      completedAt?: string;
      /**
       * The step's outputs from its termination message (never a secret).
       */
      outputs?: {
        [k: string]: string;
      };
    }[];
  };
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Conditions: Ready (False Preparing, PrepJobFailed, Reprovisioning, or the failed build stage; True BundleReady); for downloads Prepared (how the last bundle-prep went: Unknown PrepRunning, True PrepSucceeded, or False <Step>Failed naming the failed step, for example VerifyFailed); and for builds one condition per stage, True once the stage is done: Resolved, BuildDNSReady, IgnitionGenerated, LiveISOReady, Booted, Installed, Day2Configured, CertificatesRotated, Customized, PullSecretRemoved, Sealed, Stopped, DiskCaptured, Published, Validated.
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

/** CRCBundle prepares a CRC (OpenShift Local) bundle disk as a golden PVC holding a raw disk.img, with its SSH key Secret and a metadata ConfigMap, all in the operator namespace. crc ClusterInstances clone it. Exactly one source: download a published bundle (spec.version) or build one in the cluster (spec.build). Cluster-scoped. */
export interface CRCBundle {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'CRCBundle';
  metadata?: ObjectMeta;
  spec: CRCBundleSpec;
  status?: CRCBundleStatus;
}

/** How to address CRCBundle objects on the API. */
export const CRC_BUNDLE_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  plural: 'crcbundles',
  namespaced: false,
} as const;
