import type { CRCBundle } from '../../api/resources.js';
import type { CrcBounds } from '../../crc-bounds.js';
import type { BackoffPolicy } from '../../runtime/backoff.js';
import type { BuildTimings } from '../../timings.js';
import type { BundleFailures } from './bundle-metrics.js';

/** What the bundle controller takes from the operator's configuration. */
export interface BundleSettings {
  /** Where golden disks, bundle Secrets and prep Jobs live. */
  operatorNamespace: string;
  crcAgentImage: string;
  crcBundleMirrorUrl: string;
  crc: CrcBounds;
  /** The build's step deadlines. */
  timings: { build: BuildTimings };
}

export interface BundleControllerOptions {
  /**
   * Which bundles this manager prepares; all by default. CRCBundles are cluster-scoped, so tests
   * that share one control plane use it to keep to the bundles they create.
   */
  accept?: (bundle: CRCBundle) => boolean;
  retryBackoff?: BackoffPolicy;
  /** Where failed preparations are counted (guestcluster_bundle_failures_total); none when unset. */
  failures?: BundleFailures;
}
