import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES } from '../../client/api/resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import { FINALIZER_LEASE_RELEASE } from '../../operator/api/labels.js';

/** When a lease was seen, in ms of performance.now(). */
export interface LeaseTimes {
  added?: number;
  /** First seen Bound. */
  bound?: number;
  /** Seen with the release finalizer, which goes on after Bound: the bind's tail is done. */
  finalized?: boolean;
}

/** What one watch on a namespace's leases shows of each: when it was ADDED and became Bound. */
export class LeaseWatchTimes {
  private readonly seen = new Map<string, LeaseTimes>();
  private readonly waiting = new Map<string, () => void>();

  /** Watches from the namespace's current resourceVersion until `signal` aborts. */
  async start(api: ApiClient, namespace: string, signal: AbortSignal): Promise<void> {
    const { resourceVersion } = await api.list<ClusterLease>(LEASES, { namespace });
    void api
      .watch<ClusterLease>(
        LEASES,
        { namespace, resourceVersion },
        (event) => {
          const name = event.object.metadata!.name!;
          const times = this.seen.get(name) ?? {};
          this.seen.set(name, times);
          if (event.type === 'ADDED') times.added ??= performance.now();
          if (event.object.status?.phase === 'Bound') times.bound ??= performance.now();
          if (event.object.metadata?.finalizers?.includes(FINALIZER_LEASE_RELEASE))
            times.finalized = true;
          if (times.bound !== undefined && times.finalized) this.waiting.get(name)?.();
        },
        signal,
      )
      .catch(() => undefined);
  }

  of(name: string): LeaseTimes | undefined {
    return this.seen.get(name);
  }

  all(): LeaseTimes[] {
    return [...this.seen.values()];
  }

  /** Resolves once the lease is seen Bound with its release finalizer; call before creating it. */
  settled(name: string): Promise<void> {
    return new Promise((resolve) => this.waiting.set(name, resolve));
  }
}
