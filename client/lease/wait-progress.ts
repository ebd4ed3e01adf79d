import { findCondition } from '../api/conditions.js';
import type { ClusterLease, ClusterPool } from '../api/resources.js';
import { POOLS } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isForbidden } from '../kube/api-error.js';

/** Why a pool cannot give a lease an instance right now, or undefined when nothing is wrong. */
export function poolHold(pool: ClusterPool): string | undefined {
  const conditions = pool.status?.conditions;
  // VersionStreamResolved: a pool that follows a stream creates nothing until it has an answer.
  const types = [
    'ProvisioningAllowed',
    'CapacityAvailable',
    'ProvisioningHealthy',
    'VersionStreamResolved',
  ];
  const problems = types
    .map((type) => findCondition(conditions, type))
    .filter((condition) => condition?.status === 'False')
    .map((condition) => `${condition!.reason}: ${condition!.message}`);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

export function poolCounts(pool: ClusterPool): string {
  const status = pool.status ?? {};
  return `${status.availableInstances ?? 0} ready, ${status.leasedInstances ?? 0} leased, ${status.totalInstances ?? 0} of at most ${pool.spec.maxSize} instances`;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** One line about where the lease stands: its phase and its place in the pool's queue. */
export function leaseState(lease: ClusterLease): string {
  const phase = lease.status?.phase ?? 'Pending';
  const position = lease.status?.queuePosition;
  const queue =
    phase === 'Pending' && position
      ? `, ${ordinal(position)} in the queue of pool "${lease.spec.poolRef.name}"`
      : '';
  const ready = findCondition(lease.status?.conditions, 'Ready');
  const reason = ready && ready.status !== 'True' ? ` (${ready.reason})` : '';
  return `${phase}${queue}${reason}`;
}

export type Log = (line: string) => void;

/**
 * Tells a person watching the log what the wait is doing: a line for every change of the lease
 * and of its pool, and on each heartbeat how long it has waited. Reading the pool is best effort:
 * a CI identity that may not read ClusterPools still gets the lease's own progress.
 */
export class WaitProgress {
  private lastState = '';
  private lastPool = '';
  private latest: ClusterLease | undefined;
  private canReadPool = true;

  constructor(
    private readonly api: ApiClient,
    private readonly log: Log,
    private readonly startedAt: number,
  ) {}

  /** Called with every version of the lease; the pool is read again when the lease moved. */
  async update(lease: ClusterLease): Promise<void> {
    this.latest = lease;
    const state = leaseState(lease);
    if (state === this.lastState) return;
    this.lastState = state;
    this.log(`ClusterLease ${lease.metadata?.name}: ${state}`);
    if (lease.status?.phase === 'Bound') return;
    const pool = await this.poolSummary(lease);
    if (!pool || pool === this.lastPool) return;
    this.lastPool = pool;
    this.log(`ClusterPool ${lease.spec.poolRef.name}: ${pool}`);
  }

  /** Called periodically while waiting. */
  async heartbeat(now: number): Promise<void> {
    const lease = this.latest;
    if (!lease) return;
    const waited = Math.round((now - this.startedAt) / 1000);
    const pool = await this.poolSummary(lease);
    if (pool) this.lastPool = pool;
    this.log(
      `Waited ${formatSeconds(waited)}: ${leaseState(lease)}${pool ? `; pool: ${pool}` : ''}`,
    );
  }

  private async poolSummary(lease: ClusterLease): Promise<string | undefined> {
    if (!this.canReadPool) return undefined;
    try {
      const pool = await this.api.get<ClusterPool>(
        POOLS,
        lease.spec.poolRef.name,
        lease.metadata?.namespace,
      );
      const hold = poolHold(pool);
      return `${poolCounts(pool)}${hold ? `; ${hold}` : ''}`;
    } catch (error) {
      if (isForbidden(error)) this.canReadPool = false;
      return undefined;
    }
  }
}

export function formatSeconds(total: number): string {
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return minutes > 0 ? `${minutes}m${String(seconds).padStart(2, '0')}s` : `${seconds}s`;
}
