import { versionMatches } from '../../../client/api/ocp-version.js';
import type { ClusterPool } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';
import { claimedInstances } from './binding-model.js';
import { canTake } from './version-match.js';

/**
 * The version a pool gives the instances it creates: a pool that follows a VersionStream, the
 * stream's resolved version as the pool last wrote it (status.version; unknown until the stream
 * has resolved), else its template's ocpVersion.
 */
export interface PoolOffer {
  version?: string;
  /** The VersionStream the pool follows, if any. */
  stream?: string;
}

export function poolOffer(pool: ClusterPool): PoolOffer {
  const stream = pool.spec.template.versionStreamRef?.name;
  if (stream) return { stream, version: pool.status?.version };
  return { version: pool.spec.template.ocpVersion };
}

/**
 * Whether new instances of the pool will have the version a lease asks for: true when the lease
 * asks for none, undefined while the pool's version is not known.
 */
export function offerServes(offer: PoolOffer, lease: Lease): boolean | undefined {
  const wanted = lease.spec.ocpVersion;
  if (!wanted) return true;
  if (!offer.version) return undefined;
  return versionMatches(wanted, offer.version);
}

/**
 * Why no instance of the pool can ever serve the lease, or undefined when one can: the version
 * it asks for is neither the one new instances get nor that of an unclaimed instance the pool
 * has (Ready or on its way).
 */
export function versionUnavailable(
  pool: ClusterPool,
  lease: Lease,
  instances: readonly Instance[],
  leases: readonly Lease[],
): string | undefined {
  const offer = poolOffer(pool);
  if (offerServes(offer, lease) !== false) return undefined;
  const claimed = claimedInstances(instances, leases);
  const present = instances.some(
    (i) =>
      !i.metadata.deletionTimestamp &&
      i.status?.phase !== 'Failed' &&
      !claimed.has(i.metadata.name) &&
      canTake(lease, i),
  );
  if (present) return undefined;
  const source = offer.stream
    ? `it follows VersionStream "${offer.stream}"`
    : 'spec.template.ocpVersion';
  return `ClusterPool "${pool.metadata?.name}" offers OpenShift ${offer.version} (${source}) and has no unclaimed instance of ${lease.spec.ocpVersion}; the lease waits until the pool offers that version`;
}
