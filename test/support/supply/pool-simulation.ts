import type { ClusterPool } from '../../../client/api/resources.js';
import type { Instance, Lease } from '../../../operator/controllers/binding/binding-model.js';
import { accountPool } from '../../../operator/controllers/clusterpool/pool-accounting.js';
import type { Stored } from '../../../operator/kube/objects.js';
import type { InstanceTimes } from './drawn-times.js';
import { EventQueue } from './event-queue.js';
import { SeededRandom } from '../../../dev/support/seeded-random.js';
import type { PoolView, SizingPolicy } from './sizing-policy.js';
import { draw, TOPOLOGY_TIMES, type Topology } from './topology-times.js';
import type { TraceLine } from './trace.js';
import { summarise, type SupplyFigures } from './supply-figures.js';

/** A simulated pool: the spec fields the sizing reads (docs/supply-benchmark.md#method). */
export interface SimPool {
  name: string;
  topology: Topology;
  minSize: number;
  maxSize: number;
  /** spec.hibernation: how many spares run, and how long a running spare idles before it stops. */
  hibernation?: { runningSpares: number; hibernateAfterSeconds: number };
}

export interface SimOptions {
  pool: SimPool;
  policy: SizingPolicy;
  /** The week's arrivals; those of other pools are ignored. */
  trace: readonly TraceLine[];
  weekSeconds: number;
  seed: number;
  /**
   * Provisioning and teardown times (drawn-times.ts), when they must match another run's; by
   * default both are drawn from `seed`'s stream with the resume times.
   */
  times?: InstanceTimes;
}

type State = 'provisioning' | 'running' | 'hibernated' | 'resuming' | 'leased' | 'deleting';
interface SimLease {
  arrival: number;
  holdSeconds: number;
}
interface SimInstance {
  id: number;
  state: State;
  lease?: SimLease;
  /** When it became a Ready, unclaimed spare (the pool's scale-down idle clock). */
  idleSince: number;
  /** When it last started running idle (the hibernation clock). */
  runningSince: number;
}
type SimEvent =
  | { kind: 'arrival'; lease: SimLease }
  | { kind: 'ready' | 'resumed' | 'released' | 'deleted'; instance: SimInstance }
  | { kind: 'tick' };

/** The pool controller's scale-down idle wait (pool.scaleDownIdle) and how often the pool looks. */
const SCALE_DOWN_IDLE_SECONDS = 120;
const TICK_SECONDS = 60;

/**
 * One pool through a week of lease arrivals, on simulated time: what the pool creates comes from
 * the product's own accounting (pool-accounting.ts) with the policy's spares as warmSpares; trims
 * and binds follow docs/reference/kinds.md#pool-reconcile; hibernation follows spec.hibernation.
 */
export function simulatePool(options: SimOptions): SupplyFigures {
  return new PoolSimulation(options).run();
}

class PoolSimulation {
  private readonly events = new EventQueue<SimEvent>();
  private readonly random: SeededRandom;
  private readonly times: InstanceTimes;
  private readonly instances: SimInstance[] = [];
  private readonly queue: SimLease[] = [];
  private readonly waits: number[] = [];
  private nextId = 0;
  private now = 0;
  private atCapacity = false;
  private readonly totals = { idle: 0, hibernated: 0, provisioning: 0, peak: 0, maxSizeHits: 0 };

  constructor(private readonly options: SimOptions) {
    this.random = new SeededRandom(options.seed);
    const topology = TOPOLOGY_TIMES[options.pool.topology];
    this.times = options.times ?? {
      provisionSeconds: () => draw(this.random, topology.provision),
      teardownSeconds: () => draw(this.random, topology.teardown),
    };
  }

  run(): SupplyFigures {
    const { trace, pool, weekSeconds, policy } = this.options;
    for (const line of trace)
      if (line.pool === pool.name && line.at < weekSeconds)
        this.events.push(line.at, {
          kind: 'arrival',
          lease: { arrival: line.at, holdSeconds: line.holdSeconds },
        });
    for (let t = 0; t < weekSeconds; t += TICK_SECONDS) this.events.push(t, { kind: 'tick' });
    this.warmStart(policy.decide(0, this.view()).spares);
    for (let next = this.events.pop(); next; next = this.events.pop()) {
      this.integrate(next.at);
      this.now = next.at;
      this.handle(next.event);
      this.reconcile();
      if (this.queue.length === 0 && this.now >= weekSeconds) break;
    }
    this.integrate(weekSeconds);
    return summarise(this.waits, this.totals);
  }

  private warmStart(spares: number): void {
    for (let i = 0; i < spares; i++) this.add('running', -Infinity);
  }

  private add(state: State, idleSince: number): SimInstance {
    const instance: SimInstance = { id: this.nextId++, state, idleSince, runningSince: idleSince };
    this.instances.push(instance);
    return instance;
  }

  /** Spare-seconds of each kind since the last event, up to the end of the week. */
  private integrate(until: number): void {
    const dt = Math.max(
      0,
      Math.min(until, this.options.weekSeconds) - Math.min(this.now, this.options.weekSeconds),
    );
    if (dt === 0) return;
    for (const i of this.instances) {
      if (i.state === 'running' || (i.state === 'resuming' && !i.lease)) this.totals.idle += dt;
      else if (i.state === 'hibernated') this.totals.hibernated += dt;
      else if (i.state === 'provisioning') this.totals.provisioning += dt;
    }
  }

  private handle(event: SimEvent): void {
    if (event.kind === 'arrival') {
      this.options.policy.observeArrival(this.now);
      this.queue.push(event.lease);
    } else if (event.kind === 'ready') {
      this.becomeSpare(event.instance);
    } else if (event.kind === 'resumed') {
      if (event.instance.lease) this.bind(event.instance, event.instance.lease);
      else this.becomeSpare(event.instance);
    } else if (event.kind === 'released') {
      this.startDeleting(event.instance);
    } else if (event.kind === 'deleted') {
      this.instances.splice(this.instances.indexOf(event.instance), 1);
    }
  }

  private becomeSpare(instance: SimInstance): void {
    Object.assign(instance, { state: 'running', idleSince: this.now, runningSince: this.now });
  }

  private bind(instance: SimInstance, lease: SimLease): void {
    Object.assign(instance, { state: 'leased', lease });
    this.waits.push(this.now - lease.arrival);
    this.events.push(this.now + lease.holdSeconds, { kind: 'released', instance });
  }

  private startDeleting(instance: SimInstance): void {
    instance.state = 'deleting';
    this.events.push(this.now + this.times.teardownSeconds(), { kind: 'deleted', instance });
  }

  private reconcile(): void {
    this.bindWaiting();
    const decision = this.options.policy.decide(this.now, this.view());
    this.provision(decision.spares);
    this.trim(decision.spares);
    const { hibernation } = this.options.pool;
    if (hibernation)
      this.hibernate(
        decision.running ?? hibernation.runningSpares,
        hibernation.hibernateAfterSeconds,
      );
    this.totals.peak = Math.max(this.totals.peak, this.instances.length);
  }

  /** First come, first served: a running spare, else a hibernated one resumed for the lease. */
  private bindWaiting(): void {
    while (this.queue.length > 0) {
      const running = this.instances.find((i) => i.state === 'running');
      const stopped = running ? undefined : this.instances.find((i) => i.state === 'hibernated');
      if (running) this.bind(running, this.queue.shift()!);
      else if (stopped) this.resume(stopped, this.queue.shift());
      else return;
    }
  }

  private resume(instance: SimInstance, lease?: SimLease): void {
    Object.assign(instance, { state: 'resuming', lease });
    const seconds = draw(this.random, TOPOLOGY_TIMES[this.options.pool.topology].resume);
    this.events.push(this.now + seconds, { kind: 'resumed', instance });
  }

  private view(): PoolView {
    const leased = this.instances.filter((i) => i.lease && i.state !== 'deleting').length;
    return { leased, minSize: this.options.pool.minSize, maxSize: this.options.pool.maxSize };
  }

  /** Creates what the product's accounting says the pool needs, within maxSize. */
  private provision(spares: number): void {
    const accounting = accountPool(
      this.poolObject(spares),
      this.instanceObjects(),
      this.leaseObjects(),
    );
    const create = Math.min(accounting.need, accounting.room);
    // At capacity: some of the need does not fit under maxSize.
    const capped = accounting.need > 0 && accounting.need > accounting.room;
    if (capped && !this.atCapacity) this.totals.maxSizeHits += 1;
    this.atCapacity = capped;
    for (let i = 0; i < create; i++) {
      const instance = this.add('provisioning', Infinity);
      this.events.push(this.now + this.times.provisionSeconds(), { kind: 'ready', instance });
    }
  }

  /** The pool's trim: idle spares above max(spares, demand), never below minSize. */
  private trim(spares: number): void {
    const spare = this.instances.filter((i) => this.isSpare(i));
    const excess = Math.min(
      spare.length - Math.max(spares, this.queue.length),
      this.instances.length - this.options.pool.minSize,
    );
    const eligible = spare
      .filter((i) => this.now - i.idleSince >= SCALE_DOWN_IDLE_SECONDS)
      .sort((a, b) => b.id - a.id);
    for (const instance of eligible.slice(0, Math.max(0, excess))) this.startDeleting(instance);
  }

  /** spec.hibernation: stop running spares idle past hibernateAfter above `running`, resume below. */
  private hibernate(running: number, hibernateAfterSeconds: number): void {
    const up = this.instances.filter(
      (i) => i.state === 'running' || (i.state === 'resuming' && !i.lease),
    );
    if (up.length > running) {
      const idle = up
        .filter((i) => i.state === 'running' && this.now - i.runningSince >= hibernateAfterSeconds)
        .sort((a, b) => a.runningSince - b.runningSince);
      for (const instance of idle.slice(0, up.length - running)) instance.state = 'hibernated';
      return;
    }
    const stopped = this.instances.filter((i) => i.state === 'hibernated');
    for (const instance of stopped.slice(0, running - up.length)) this.resume(instance);
  }

  private isSpare(i: SimInstance): boolean {
    return (
      !i.lease && (i.state === 'running' || i.state === 'hibernated' || i.state === 'resuming')
    );
  }

  private poolObject(spares: number): Stored<ClusterPool> {
    const { name, topology, minSize, maxSize } = this.options.pool;
    return {
      apiVersion: 'guestcluster.opdev.io/v1alpha1',
      kind: 'ClusterPool',
      metadata: { name, namespace: 'ci' },
      spec: { type: topology, minSize, maxSize, warmSpares: spares, template: {} },
    } as unknown as Stored<ClusterPool>;
  }

  /** The instances as the accounting reads them: spares of any kind are Ready and unclaimed. */
  private instanceObjects(): Instance[] {
    return this.instances.map((i) => {
      const name = `${this.options.pool.name}-${i.id}`;
      const metadata = {
        name,
        namespace: 'ci',
        uid: name,
        ...(i.state === 'deleting' ? { deletionTimestamp: 'x' } : {}),
      };
      const phase = i.state === 'provisioning' ? 'Provisioning' : 'Ready';
      const leaseRef = i.lease ? { name: `lease-${i.id}`, uid: `lease-${i.id}` } : undefined;
      return {
        metadata,
        spec: { type: this.options.pool.topology },
        status: { phase, leaseRef },
      } as unknown as Instance;
    });
  }

  private leaseObjects(): Lease[] {
    return this.queue.map(
      (lease, index) =>
        ({
          metadata: { name: `waiting-${index}`, namespace: 'ci', uid: `waiting-${index}` },
          spec: { poolRef: { name: this.options.pool.name } },
          status: { phase: 'Pending' },
        }) as unknown as Lease,
    );
  }
}
