import type { ClusterLease } from '../operator/api/resources.js';
import { versionMatches } from '../operator/api/ocp-version.js';
import type { Settings } from './inputs.js';

/** What differs between the cluster the job asked for and the one it got; empty when nothing. */
export function mismatches(settings: Settings, lease: ClusterLease): string[] {
  const found: string[] = [];
  const topology = lease.status?.topology ?? '';
  const version = lease.status?.ocpVersion ?? '';
  if (settings.expectedTopology && topology !== settings.expectedTopology)
    found.push(`topology is "${topology}", expected "${settings.expectedTopology}"`);
  if (settings.expectedOcpVersion && !versionMatches(settings.expectedOcpVersion, version))
    found.push(`OpenShift version is "${version}", expected ${settings.expectedOcpVersion}`);
  return found;
}
