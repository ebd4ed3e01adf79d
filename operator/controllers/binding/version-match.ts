import { versionMatches, versionsOverlap } from '../../../client/api/ocp-version.js';
import type { ClusterInstance, ClusterLease } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';

/**
 * Leases that ask for a version (spec.ocpVersion) take only instances of a matching one
 * (ADR 0030). The version of an instance is the one its guest reports once Ready, else the one
 * its template asks for.
 */
export function instanceVersion(instance: ClusterInstance): string {
  return instance.status?.ocpVersion || instance.spec.template.ocpVersion || '';
}

/** Whether the lease may take the instance, versions considered (claims aside). */
export function canTake(lease: ClusterLease, instance: ClusterInstance): boolean {
  const wanted = lease.spec.ocpVersion;
  return !wanted || versionMatches(wanted, instanceVersion(instance));
}

export type QueuePlacement = { instance: Instance } | { queuePosition: number };

/**
 * Where `lease` stands in `queue` (its pool's waiting leases, first come first, the lease among
 * them) when leases ask for versions. The whole queue is matched to the available instances, the
 * same way on every pass and in every manager: in queue order, each lease takes the oldest free
 * instance it can, else one an earlier lease holds when that lease can move to another (an
 * augmenting path, as in bipartite matching). So a lease never loses its instance to a later one,
 * a lease asking for a version nobody has blocks no one behind it, and a lease that takes any
 * version leaves a later one the only instance it can use. Unserved, a lease's position counts
 * the unserved leases ahead of it that want a version it could use too.
 */
export function placeByVersion(
  lease: Lease,
  queue: readonly Lease[],
  available: readonly Instance[],
): QueuePlacement {
  const match = new InstanceMatch(available);
  const place = queue.indexOf(lease);
  let competing = 0;
  queue.forEach((other, index) => {
    const served = match.serve(other);
    if (index < place && !served && versionsOverlap(other.spec.ocpVersion, lease.spec.ocpVersion))
      competing++;
  });
  const instance = match.instanceOf(lease);
  return instance ? { instance } : { queuePosition: competing + 1 };
}

/** Leases matched to instances they can take, one each (Kuhn's augmenting paths). */
class InstanceMatch {
  private readonly owner = new Map<Instance, Lease>();
  private readonly held = new Map<Lease, Instance>();

  constructor(private readonly instances: readonly Instance[]) {}

  instanceOf(lease: Lease): Instance | undefined {
    return this.held.get(lease);
  }

  /** Gives the lease an instance without taking one from a lease served before; false if none. */
  serve(lease: Lease): boolean {
    // Once every instance is held, moving a holder would need a free one: there is none.
    if (this.owner.size === this.instances.length) return false;
    return this.augment(lease, new Set());
  }

  private augment(lease: Lease, visited: Set<Instance>): boolean {
    const takeable = this.instances.filter((i) => canTake(lease, i));
    const free = takeable.find((i) => !this.owner.has(i));
    if (free) return this.assign(lease, free);
    for (const instance of takeable) {
      if (visited.has(instance)) continue;
      visited.add(instance);
      if (this.augment(this.owner.get(instance)!, visited)) return this.assign(lease, instance);
    }
    return false;
  }

  private assign(lease: Lease, instance: Instance): true {
    this.owner.set(instance, lease);
    this.held.set(lease, instance);
    return true;
  }
}
