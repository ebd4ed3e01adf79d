import type { ConditionUpdate } from '../../api/conditions.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { BundleFailures } from '../bundles/bundle-metrics.js';
import type { BundleSettings } from '../bundles/bundle-settings.js';
import type { BundleStatus } from '../bundles/bundle-status.js';
import { writeBundleStatus } from '../bundles/bundle-status.js';
import type { Bundle } from './build-meta.js';

/** What the parts of the build controller act with: its ports, settings and failure counter. */
export interface BuildEnv {
  ports: ControllerPorts;
  settings: BundleSettings;
  /** Where failed builds are counted (guestcluster_bundle_failures_total); none when unset. */
  failures?: BundleFailures;
}

/**
 * The build's one status writer: the bundle's status with these conditions, when it changed.
 * Returns the bundle as written (or as it was).
 */
export async function writeBuild(
  env: BuildEnv,
  bundle: Bundle,
  status: BundleStatus,
  conditions: ConditionUpdate[],
): Promise<Bundle> {
  return writeBundleStatus(env.ports, bundle, status, conditions);
}
