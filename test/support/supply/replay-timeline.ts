import type { ClusterInstance } from '../../../client/api/resources.js';

/** How a pool's instances stood from one change to the next. */
interface Sample {
  atMs: number;
  idle: number;
  provisioning: number;
  total: number;
}

/** Ready, unclaimed and not deleting: a running spare nobody uses. */
export function isIdleSpare(instance: ClusterInstance): boolean {
  return (
    instance.status?.phase === 'Ready' &&
    !instance.status.leaseRef &&
    !instance.metadata?.deletionTimestamp
  );
}

function isProvisioning(instance: ClusterInstance): boolean {
  const phase = instance.status?.phase;
  return !instance.metadata?.deletionTimestamp && phase !== 'Ready' && phase !== 'Failed';
}

/**
 * A pool's instance counts over real time, as a watch sees them, and their integrals over a
 * window: the replay's idle spare-hours, provisioning hours and peak (docs/supply-benchmark.md#figures).
 */
export class InstanceTimeline {
  private readonly samples: Sample[] = [];

  record(atMs: number, instances: Iterable<ClusterInstance>): void {
    const sample: Sample = { atMs, idle: 0, provisioning: 0, total: 0 };
    for (const instance of instances) {
      sample.total += 1;
      if (isIdleSpare(instance)) sample.idle += 1;
      else if (isProvisioning(instance)) sample.provisioning += 1;
    }
    const last = this.samples.at(-1);
    const same =
      last &&
      last.idle === sample.idle &&
      last.provisioning === sample.provisioning &&
      last.total === sample.total;
    if (!same) this.samples.push(sample);
  }

  /** Instance-milliseconds of `kind` within [fromMs, toMs). */
  integral(kind: 'idle' | 'provisioning', fromMs: number, toMs: number): number {
    let sum = 0;
    this.samples.forEach((sample, index) => {
      const start = Math.max(sample.atMs, fromMs);
      const end = Math.min(this.samples[index + 1]?.atMs ?? Infinity, toMs);
      if (end > start) sum += sample[kind] * (end - start);
    });
    return sum;
  }

  /** The most instances present at once within [fromMs, toMs]. */
  peak(fromMs: number, toMs: number): number {
    let peak = 0;
    this.samples.forEach((sample, index) => {
      const next = this.samples[index + 1]?.atMs ?? Infinity;
      if (next > fromMs && sample.atMs <= toMs) peak = Math.max(peak, sample.total);
    });
    return peak;
  }
}
