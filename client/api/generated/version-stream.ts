// Generated from crds/versionstreams.yaml by `npm run generate:types`. Do not edit: change the CRD and regenerate.
import type { ObjectMeta } from '../../kube/objects.js';

/**
 * Which releases the stream follows.
 */
export interface VersionStreamSpec {
  /**
   * OpenShift minor version, for example "4.19".
   */
  minor: string;
  /**
   * Update channel group; the channel is <channelGroup>-<minor>, for example stable-4.19.
   */
  channelGroup?: 'stable' | 'fast' | 'candidate' | 'eus';
  /**
   * CPU architecture of the releases and bundles.
   */
  arch?: 'amd64' | 'arm64';
  /**
   * An exact version of spec.minor (for example 4.19.7, or a pre-release such as 4.19.0-rc.3 of the candidate channel) that overrides resolution, for a freeze. The stream moves to it even when it is older than the current answer.
   */
  pin?: string;
}

/**
 * The stream's current answer, written by the operator.
 */
export interface VersionStreamStatus {
  /**
   * The OpenShift version the stream resolved to, for example 4.19.7.
   */
  resolvedVersion?: string;
  /**
   * The release image of resolvedVersion pinned by digest (<repository>@sha256:<hex>), as the update service publishes it.
   */
  releaseImage?: string;
  /**
   * The newest CRC bundle version on the operator's CRC mirror whose OpenShift version is in spec.minor (resolvedVersion itself when the stream is pinned); unset when the mirror has none.
   */
  crcBundleVersion?: string;
  /**
   * When the operator last reached the update service and settled the answer.
   */
  lastResolved?: string;
  /**
   * metadata.generation that this status was computed from.
   */
  observedGeneration?: number;
  /**
   * Conditions: Resolved (True Resolved; False NoReleaseInChannel, UpdateServiceUnreachable, which keeps the last good answer, or InvalidSpec).
   *
   * Items: One condition (metav1.Condition).
   */
  conditions?: {
    /**
     * Condition type in CamelCase, for example Resolved. Unique within the list.
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

/** VersionStream follows the newest release of one OpenShift minor in an update channel: the operator resolves it through the OpenShift update service (the release image for hcp) and the CRC bundle mirror (the bundle version for crc), and moves it forward only, unless spec.pin names an exact version. Cluster-scoped: streams are set up by the cluster administrator. */
export interface VersionStream {
  apiVersion: 'guestcluster.opdev.io/v1alpha1';
  kind: 'VersionStream';
  metadata?: ObjectMeta;
  spec: VersionStreamSpec;
  status?: VersionStreamStatus;
}

/** How to address VersionStream objects on the API. */
export const VERSION_STREAM_RESOURCE = {
  group: 'guestcluster.opdev.io',
  version: 'v1alpha1',
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'VersionStream',
  plural: 'versionstreams',
  namespaced: false,
} as const;
