import type { CrcBounds } from '../../crc-bounds.js';
import type { OperatorScope } from '../../operator-scope.js';
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
  /** Which bundles this operator prepares: those that carry its scope's labels (all when unset). */
  scope?: OperatorScope;
}

export interface BundleControllerOptions {
  retryBackoff?: BackoffPolicy;
  /** Where failed preparations are counted (guestcluster_bundle_failures_total); none when unset. */
  failures?: BundleFailures;
}
