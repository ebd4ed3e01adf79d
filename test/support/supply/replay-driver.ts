import type { ClusterInstance, ClusterLease } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../../client/api/resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { hcpPool, lease } from '../fixtures/pool-fixtures.js';
import { watchCollection } from './collection-watch.js';
import type { ReplayDelays } from './replay-delays.js';
import type { ReplayPlan } from './replay-plan.js';
import { InstanceLives, InstanceTimeline, isIdleSpare } from './replay-timeline.js';
import { summarise, type SupplyFigures } from './supply-figures.js';

export interface ReplayRunOptions {
  api: ApiClient;
  namespace: string;
  plan: ReplayPlan;
  /** The delays the world's simulated HyperShift was started with. */
  delays: ReplayDelays;
  /** Real milliseconds the pool may take to make its first spares Ready. */
  warmUpTimeoutMs: number;
  /** Real milliseconds after the window's end within which every lease must be Bound. */
  graceMs: number;
  /** Also wait until every Bound lease has been deleted after its hold (for short traces). */
  untilReleased?: boolean;
}

/** One replayed lease, in real milliseconds from the replay's start. */
export interface ReplayedLease {
  name: string;
  holdMs: number;
  createdMs?: number;
  boundMs?: number;
  deletedMs?: number;
}

export interface ReplayResult {
  /** In simulated units (real time × compression), to set beside the simulation's. */
  figures: SupplyFigures;
  leases: ReplayedLease[];
  /** Real seconds from the replay's start until it ended. */
  realSeconds: number;
  /**
   * How long the instances made during the replay took to become Ready once seen, and those
   * deleted during it to go, in simulated seconds (the drawn times plus the operator's own).
   */
  instanceSeconds: { provision: number[]; teardown: number[] };
}

/**
 * The plan's slice on the real operator (docs/supply-benchmark.md#the-replay): a pool whose first
 * spares are Ready, then each lease created at its compressed arrival and deleted a compressed hold
 * after it is Bound, while watches record when each lease binds and how the instances stand.
 */
export async function runReplay(options: ReplayRunOptions): Promise<ReplayResult> {
  const run = new ReplayRun(options);
  try {
    return await run.run();
  } finally {
    run.stop();
  }
}

class ReplayRun {
  private readonly abort = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly timeline = new InstanceTimeline();
  private readonly lives = new InstanceLives();
  private readonly leases: ReplayedLease[];
  private t0 = Infinity;
  private instances: ReadonlyMap<string, ClusterInstance> = new Map();
  private check: () => void = () => undefined;
  private fail: (error: unknown) => void = () => undefined;

  constructor(private readonly options: ReplayRunOptions) {
    const { compression, slice } = options.plan;
    this.leases = slice.lines.map((line, index) => ({
      name: `replay-${String(index).padStart(3, '0')}`,
      holdMs: (line.holdSeconds * 1000) / compression,
    }));
  }

  private get windowMs(): number {
    const { slice, compression } = this.options.plan;
    return (slice.durationSeconds * 1000) / compression;
  }

  private now(): number {
    return performance.now() - this.t0;
  }

  async run(): Promise<ReplayResult> {
    const { api, namespace, plan } = this.options;
    const { name, minSize, maxSize, warmSpares } = plan.pool;
    const pool = hcpPool(namespace, name, { minSize, maxSize, warmSpares, ...plan.sizing?.spec });
    pool.spec.template.nodePoolReplicas = 1;
    this.watch();
    await api.create(POOLS, pool);
    await this.until(
      () => [...this.instances.values()].filter(isIdleSpare).length >= warmSpares,
      this.options.warmUpTimeoutMs,
      `${warmSpares} Ready spares in pool ${name}`,
    );
    this.options.delays.arm();
    this.t0 = performance.now();
    this.scheduleArrivals();
    this.timers.push(setTimeout(() => this.check(), this.windowMs));
    await this.until(
      () => this.finished(),
      this.windowMs + this.options.graceMs,
      'every lease of the slice Bound',
    );
    const endMs = this.now();
    this.options.delays.disarm();
    const { provisionMs, teardownMs } = this.lives.durations(this.t0);
    const simulated = (ms: number): number => (ms / 1000) * this.options.plan.compression;
    return {
      figures: this.figures(endMs),
      leases: this.leases,
      realSeconds: endMs / 1000,
      instanceSeconds: {
        provision: provisionMs.map(simulated),
        teardown: teardownMs.map(simulated),
      },
    };
  }

  stop(): void {
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.options.delays.disarm();
  }

  /** Resolves once `done` holds, looked at on every change; rejects at the deadline or a failure. */
  private until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replay: timed out after ${timeoutMs} ms waiting for ${what}`)),
        timeoutMs,
      );
      this.timers.push(timer);
      this.fail = reject;
      this.check = () => {
        if (!done()) return;
        clearTimeout(timer);
        resolve();
      };
      this.check();
    });
  }

  private finished(): boolean {
    if (this.now() < this.windowMs) return false;
    return this.leases.every(
      (l) => l.boundMs !== undefined && (!this.options.untilReleased || l.deletedMs !== undefined),
    );
  }

  private watch(): void {
    const { api, namespace } = this.options;
    const failed = (error: unknown): void => {
      if (!this.abort.signal.aborted) this.fail(error);
    };
    watchCollection<ClusterInstance>(
      api,
      INSTANCES,
      namespace,
      (items) => {
        this.instances = items;
        this.timeline.record(performance.now(), items.values());
        this.lives.record(performance.now(), items.values());
        this.check();
      },
      this.abort.signal,
    ).catch(failed);
    watchCollection<ClusterLease>(
      api,
      LEASES,
      namespace,
      (items) => this.leasesChanged(items),
      this.abort.signal,
    ).catch(failed);
  }

  private scheduleArrivals(): void {
    const { api, namespace, plan } = this.options;
    plan.slice.lines.forEach((line, index) => {
      const replayed = this.leases[index]!;
      const create = async (): Promise<void> => {
        replayed.createdMs = this.now();
        await api.create(LEASES, lease(namespace, replayed.name, plan.pool.name));
      };
      const at = (line.at * 1000) / plan.compression;
      this.timers.push(setTimeout(() => void create().catch((e: unknown) => this.fail(e)), at));
    });
  }

  /** A lease seen Bound for the first time is deleted a hold later, by its UID. */
  private leasesChanged(items: ReadonlyMap<string, ClusterLease>): void {
    for (const replayed of this.leases) {
      const current = items.get(replayed.name);
      if (replayed.boundMs !== undefined || current?.status?.phase !== 'Bound') continue;
      replayed.boundMs = this.now();
      const uid = current.metadata!.uid!;
      const release = async (): Promise<void> => {
        await this.options.api.delete(LEASES, replayed.name, this.options.namespace, { uid });
        replayed.deletedMs = this.now();
        this.check();
      };
      this.timers.push(
        setTimeout(() => void release().catch((e: unknown) => this.fail(e)), replayed.holdMs),
      );
    }
    this.check();
  }

  /** The replay's figures in simulated units: waits from creation to Bound, hours over the window. */
  private figures(endMs: number): SupplyFigures {
    const { compression } = this.options.plan;
    const simulated = (realMs: number): number => (realMs / 1000) * compression;
    const waits = this.leases.map((l) => simulated(l.boundMs! - l.createdMs!));
    const window = [this.t0, this.t0 + this.windowMs] as const;
    return summarise(waits, {
      idle: simulated(this.timeline.integral('idle', ...window)),
      hibernated: 0,
      provisioning: simulated(this.timeline.integral('provisioning', ...window)),
      peak: this.timeline.peak(this.t0, this.t0 + endMs),
      maxSizeHits: 0,
    });
  }
}
