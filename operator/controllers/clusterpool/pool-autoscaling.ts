import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterPool } from '../../../client/api/resources.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Lease } from '../binding/binding-model.js';
import { autoscalingPolicy } from './autoscaling/autoscaling-spec.js';
import type { ScaleState } from './autoscaling/desired-spares.js';
import { desiredSpares } from './autoscaling/desired-spares.js';
import { desiredRunningSpares } from './autoscaling/running-spares.js';
import { SLOT_MS, slotStart } from './autoscaling/week-slots.js';
import type { HistoryEntry } from './demand-history-store.js';
import { DemandHistoryStore, historyConfigMapName } from './demand-history-store.js';
import type { Pool } from './pool-conditions.js';
import type { ScheduleReading } from './pool-schedule.js';
import { readSchedule } from './pool-schedule.js';

type PoolStatus = NonNullable<ClusterPool['status']>;

export const SparesEvent = {
  SparesChanged: 'SparesChanged',
  DemandHistoryRefused: 'DemandHistoryRefused',
  InvalidTimeZone: 'InvalidTimeZone',
} as const;

/**
 * How long a new instance takes to become Ready, by topology: the medians the supply benchmark
 * assumes (docs/supply-benchmark.md), estimates until measured on a real management cluster.
 */
export const PROVISIONING_ESTIMATE_MS = { crc: 8 * 60_000, hcp: 15 * 60_000 } as const;
/**
 * How long a hibernated spare takes to resume, by topology: the benchmark's medians
 * (docs/supply-benchmark.md): a crc VM booting its disk, hcp workers joining again.
 */
export const RESUME_ESTIMATE_MS = { crc: 3 * 60_000, hcp: 5 * 60_000 } as const;

const MAX_REASON_CHARS = 1024;

/** What a pass of a pool that opted in decided; nothing for a pool that did not. */
export interface SparesPlan {
  /** Replaces spec.warmSpares in the pool's floors; undefined leaves the pool's own. */
  warmSpares?: number;
  /** Replaces spec.hibernation.runningSpares: an autoscaled pool that hibernates. */
  runningSpares?: number;
  autoscaling: NonNullable<PoolStatus['autoscaling']>;
  conditions: ConditionUpdate[];
  /** The next pass: a slot's end, a held scale-down, a schedule's boundary. */
  next: ReconcileResult;
}

interface Decision {
  spares: number;
  /** Of the spares, those that run: an autoscaled pool with spec.hibernation. */
  running?: number;
  reason: string;
  state?: ScaleState;
  nextAt: number;
}

/**
 * The spares a pool with spec.autoscaling or spec.schedule keeps
 * (docs/reference/kinds.md#adaptive-warm-spares, #spare-schedules): a schedule's rule sets the
 * spares of its window (for an autoscaled pool: its fewest), the policy follows the pool's
 * demand, learned in its history. An Event only when the number changes.
 */
export class SparesPlanner {
  private readonly store: DemandHistoryStore;
  /** The last decision's scale state and number, by pool key (and UID). */
  private readonly decided = new Map<string, { uid: string; spares: number; state?: ScaleState }>();

  constructor(private readonly ports: ControllerPorts) {
    this.store = new DemandHistoryStore(ports);
  }

  async plan(
    key: string,
    pool: Pool,
    { leases, leased }: { leases: readonly Lease[]; leased: number },
    now: number,
  ): Promise<SparesPlan | undefined> {
    const { autoscaling, schedule } = pool.spec;
    if (!autoscaling && !schedule) {
      this.forget(key);
      return undefined;
    }
    const reading = schedule ? readSchedule(schedule, now) : undefined;
    const conditions = schedule ? [this.scheduleValid(pool, reading)] : [];
    const decision = autoscaling
      ? await this.autoscale(key, pool, { leases, leased, reading, conditions }, now)
      : scheduled(pool, reading);
    this.announce(pool, this.previous(key, pool), decision);
    this.decided.set(key, {
      uid: pool.metadata.uid,
      spares: decision.spares,
      ...(decision.state ? { state: decision.state } : {}),
    });
    const status = pool.status?.autoscaling;
    const changed = status?.desiredSpares !== decision.spares || !status.lastChangeTime;
    const running = decision.running;
    return {
      warmSpares: decision.spares,
      ...(running === undefined ? {} : { runningSpares: running }),
      autoscaling: {
        desiredSpares: decision.spares,
        ...(running === undefined ? {} : { runningSpares: running }),
        reason: decision.reason.slice(0, MAX_REASON_CHARS),
        lastChangeTime: changed ? metaTime(now) : status.lastChangeTime,
      },
      conditions,
      next: { requeueAt: decision.nextAt },
    };
  }

  forget(key: string): void {
    this.decided.delete(key);
    this.store.forget(key);
  }

  /** The schedule's condition; a Warning Event when its zone starts being unknown. */
  private scheduleValid(pool: Pool, reading: ScheduleReading | undefined): ConditionUpdate {
    const zone = pool.spec.schedule?.timeZone ?? '';
    const condition = scheduleCondition(zone, !!reading, pool.metadata.generation);
    const before = findCondition(pool.status?.conditions, condition.type);
    if (!reading && before?.reason !== condition.reason)
      void this.ports.events.record(
        pool,
        'Warning',
        SparesEvent.InvalidTimeZone,
        condition.message,
      );
    return condition;
  }

  /** An Event only when the number changes, naming old → new and why. */
  private announce(pool: Pool, previous: number, decision: Decision): void {
    if (previous === decision.spares) return;
    const message = `Desired spares ${previous} → ${decision.spares}: ${decision.reason}`;
    void this.ports.events.record(pool, 'Normal', SparesEvent.SparesChanged, message);
  }

  /** The history's condition; a Warning Event when the stored one starts being refused. */
  private historyUsable(pool: Pool, problem: HistoryEntry['problem']): ConditionUpdate {
    const before = findCondition(pool.status?.conditions, 'DemandHistoryUsable');
    if (problem && before?.reason !== problem.reason)
      void this.ports.events.record(
        pool,
        'Warning',
        SparesEvent.DemandHistoryRefused,
        problem.message,
      );
    return historyCondition(pool, problem);
  }

  /**
   * The scale state the last decision left: this operator's; after a restart the status's number,
   * its hold starting afresh, so a restart never makes the spares fall at once.
   */
  private previousState(key: string, pool: Pool, now: number): ScaleState | undefined {
    const mine = this.decided.get(key);
    if (mine && mine.uid === pool.metadata.uid) return mine.state;
    const spares = pool.status?.autoscaling?.desiredSpares;
    return spares === undefined ? undefined : { spares, heldSince: now };
  }

  /** The number the last decision gave: this operator's, else the status's (a restart). */
  private previous(key: string, pool: Pool): number {
    const mine = this.decided.get(key);
    if (mine && mine.uid === pool.metadata.uid) return mine.spares;
    return pool.status?.autoscaling?.desiredSpares ?? pool.spec.warmSpares ?? 0;
  }

  private async autoscale(
    key: string,
    pool: Pool,
    seen: {
      leases: readonly Lease[];
      leased: number;
      reading?: ScheduleReading;
      conditions: ConditionUpdate[];
    },
    now: number,
  ): Promise<Decision> {
    const spec = pool.spec.autoscaling!;
    const entry = await this.store.observe(key, pool, seen.leases, now);
    seen.conditions.push(this.historyUsable(pool, entry.problem));
    const rule = seen.reading?.rule;
    const floor = rule ? Math.min(rule.warmSpares, spec.maxSpares) : spec.minSpares;
    const policy = autoscalingPolicy({ ...spec, minSpares: floor ?? 0 });
    const previous = this.previousState(key, pool, now);
    const decision = desiredSpares({
      now,
      history: entry.history,
      policy,
      leadTimeMs: PROVISIONING_ESTIMATE_MS[pool.spec.type],
      pool: { minSize: pool.spec.minSize, maxSize: pool.spec.maxSize, leased: seen.leased },
      ...(previous ? { previous } : {}),
    });
    await this.store.save(key, pool, entry);
    // A held fall steps at the end of its delay; a pass then is harmless otherwise.
    const held = decision.state.heldSince + policy.scaleDownDelayMs;
    const nextAt = Math.min(slotStart(now) + SLOT_MS, held, seen.reading?.nextChangeAt ?? Infinity);
    const reason = rule
      ? `${decision.reason}, fewest ${floor} from ${rule.label}`
      : decision.reason;
    const hibernation = pool.spec.hibernation;
    if (!hibernation) return { spares: decision.spares, reason, state: decision.state, nextAt };
    // The spares that run cover the leases of one resume time, as the spares cover those of one
    // provisioning time: a taken running spare is replaced by resuming a hibernated one.
    const running = desiredRunningSpares(
      decision.ratePerMinute,
      RESUME_ESTIMATE_MS[pool.spec.type],
      policy.coverage,
      { floor: hibernation.runningSpares ?? 0, spares: decision.spares },
    );
    const runningReason = `${reason}; ${running} running, covering a ${RESUME_ESTIMATE_MS[pool.spec.type] / 60_000} min resume`;
    return {
      spares: decision.spares,
      running,
      reason: runningReason,
      state: decision.state,
      nextAt,
    };
  }
}

/** A pool with a schedule and no autoscaling: the rule's spares, else its own warmSpares. */
function scheduled(pool: Pool, reading: ScheduleReading | undefined): Decision {
  const own = pool.spec.warmSpares ?? 0;
  const zone = pool.spec.schedule?.timeZone ?? '';
  if (!reading)
    return {
      spares: own,
      reason: `${own} spares: spec.warmSpares (spec.schedule.timeZone ${zone} is unknown)`,
      nextAt: Infinity,
    };
  const { rule } = reading;
  return rule
    ? {
        spares: rule.warmSpares,
        reason: `${rule.warmSpares} spares: ${rule.label}`,
        nextAt: reading.nextChangeAt,
      }
    : {
        spares: own,
        reason: `${own} spares: spec.warmSpares, no schedule rule holds now (${zone})`,
        nextAt: reading.nextChangeAt,
      };
}

function scheduleCondition(zone: string, known: boolean, generation?: number): ConditionUpdate {
  return known
    ? {
        type: 'ScheduleValid',
        status: 'True',
        reason: 'ScheduleValid',
        message: `spec.schedule is read in ${zone}`,
        observedGeneration: generation,
      }
    : {
        type: 'ScheduleValid',
        status: 'False',
        reason: 'InvalidTimeZone',
        message: `spec.schedule.timeZone "${zone}" is not an IANA time zone this operator knows (for example Europe/Berlin or UTC); the schedule is not used until it is corrected`,
        observedGeneration: generation,
      };
}

function historyCondition(
  pool: Pool,
  problem: { reason: string; message: string } | undefined,
): ConditionUpdate {
  const observedGeneration = pool.metadata.generation;
  return problem
    ? { type: 'DemandHistoryUsable', status: 'False', ...problem, observedGeneration }
    : {
        type: 'DemandHistoryUsable',
        status: 'True',
        reason: 'HistoryLoaded',
        message: `the pool learns its demand in ConfigMap ${historyConfigMapName(pool.metadata.name)}`,
        observedGeneration,
      };
}

/** The pool's status with the plan's spares and conditions; unchanged without a plan. */
export function withSparesPlan(
  status: PoolStatus,
  plan: SparesPlan | undefined,
  now: number,
): PoolStatus {
  if (!plan) return status;
  let { conditions } = status;
  for (const update of plan.conditions) conditions = setCondition(conditions, update, now);
  return { ...status, autoscaling: plan.autoscaling, ...(conditions ? { conditions } : {}) };
}
