import type { ClusterLease } from '../api/resources.js';
import { versionMatches } from '../api/ocp-version.js';

/** What a job asked of its cluster beyond the pool (the Action's expected-* inputs). */
export interface Expectations {
  expectedTopology?: 'crc' | 'hcp';
  expectedOcpVersion?: string;
}

/** What differs between the cluster the job asked for and the one it got; empty when nothing. */
export function mismatches(expected: Expectations, lease: ClusterLease): string[] {
  const found: string[] = [];
  const topology = lease.status?.topology ?? '';
  const version = lease.status?.ocpVersion ?? '';
  if (expected.expectedTopology && topology !== expected.expectedTopology)
    found.push(`topology is "${topology}", expected "${expected.expectedTopology}"`);
  if (expected.expectedOcpVersion && !versionMatches(expected.expectedOcpVersion, version))
    found.push(`OpenShift version is "${version}", expected ${expected.expectedOcpVersion}`);
  return found;
}
