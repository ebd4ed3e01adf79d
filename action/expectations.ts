import type { ClusterLease } from '../operator/api/resources.js';
import type { Settings } from './inputs.js';

/** "4.16" accepts 4.16.x; "4.16.10" only itself. */
export function versionMatches(expected: string, actual: string): boolean {
  return actual === expected || actual.startsWith(`${expected}.`);
}

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
