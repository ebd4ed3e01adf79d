/** What one simulated week measured for a pool (docs/supply-benchmark.md#figures). */
export interface SupplyFigures {
  leases: number;
  p50WaitSeconds: number;
  p95WaitSeconds: number;
  maxWaitSeconds: number;
  /** Spare-hours of instances running with no lease (Ready, or resuming for no lease). */
  idleSpareHours: number;
  hibernatedSpareHours: number;
  provisioningHours: number;
  peakInstances: number;
  /** How often the pool needed instances while at maxSize (episodes, not passes). */
  maxSizeHits: number;
  waits: number[];
}

export function summarise(
  waits: number[],
  totals: {
    idle: number;
    hibernated: number;
    provisioning: number;
    peak: number;
    maxSizeHits: number;
  },
): SupplyFigures {
  return {
    leases: waits.length,
    p50WaitSeconds: percentile(waits, 50),
    p95WaitSeconds: percentile(waits, 95),
    maxWaitSeconds: waits.length ? Math.max(...waits) : 0,
    idleSpareHours: totals.idle / 3600,
    hibernatedSpareHours: totals.hibernated / 3600,
    provisioningHours: totals.provisioning / 3600,
    peakInstances: totals.peak,
    maxSizeHits: totals.maxSizeHits,
    waits,
  };
}

/** Several pools' weeks as one: waits pooled, hours added, peaks added (they share a cluster). */
export function combine(parts: readonly SupplyFigures[]): SupplyFigures {
  const waits = parts.flatMap((p) => p.waits);
  const sum = (
    key:
      | 'idleSpareHours'
      | 'hibernatedSpareHours'
      | 'provisioningHours'
      | 'peakInstances'
      | 'maxSizeHits',
  ): number => parts.reduce((total, p) => total + p[key], 0);
  return {
    ...summarise(waits, { idle: 0, hibernated: 0, provisioning: 0, peak: 0, maxSizeHits: 0 }),
    idleSpareHours: sum('idleSpareHours'),
    hibernatedSpareHours: sum('hibernatedSpareHours'),
    provisioningHours: sum('provisioningHours'),
    peakInstances: sum('peakInstances'),
    maxSizeHits: sum('maxSizeHits'),
  };
}

/** Nearest-rank percentile (0–100); 0 for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}
