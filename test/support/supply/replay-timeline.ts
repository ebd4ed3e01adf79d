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

/** When the replay saw an instance appear, become Ready, start deleting and go (real ms). */
export interface InstanceLife {
  seenMs: number;
  readyMs?: number;
  deletingMs?: number;
  goneMs?: number;
}

/** Each instance's life as the watch sees it, by UID. */
export class InstanceLives {
  readonly lives = new Map<string, InstanceLife>();

  record(atMs: number, instances: Iterable<ClusterInstance>): void {
    const present = new Set<string>();
    for (const instance of instances) {
      const uid = instance.metadata!.uid!;
      present.add(uid);
      const life = this.lives.get(uid) ?? { seenMs: atMs };
      this.lives.set(uid, life);
      if (instance.status?.phase === 'Ready') life.readyMs ??= atMs;
      if (instance.metadata?.deletionTimestamp) life.deletingMs ??= atMs;
    }
    for (const [uid, life] of this.lives) if (!present.has(uid)) life.goneMs ??= atMs;
  }

  /** Seen → Ready of the instances first seen at or after `fromMs`, and deleting → gone, in ms. */
  durations(fromMs: number): { provisionMs: number[]; teardownMs: number[] } {
    const lives = [...this.lives.values()];
    return {
      provisionMs: lives
        .filter((l) => l.seenMs >= fromMs && l.readyMs !== undefined)
        .map((l) => l.readyMs! - l.seenMs),
      teardownMs: lives
        .filter((l) => l.deletingMs !== undefined && l.deletingMs >= fromMs && l.goneMs)
        .map((l) => l.goneMs! - l.deletingMs!),
    };
  }
}
