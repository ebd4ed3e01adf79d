import { SLOT_MS, SLOTS_PER_WEEK, slotOf, slotStart } from './week-slots.js';

/** The format of the history; a stored history of another version is started afresh. */
export const HISTORY_VERSION = 1;
/** How much one week's count moves a slot's learned value: recent weeks count most. */
export const WEEK_WEIGHT = 0.3;
/** The time constant of the recent rate: a burst's weight halves in about 7 minutes. */
export const RECENT_TAU_MS = 10 * 60_000;
/**
 * A gap longer than this between two looks (the operator was down) is not learned as quiet:
 * its slots keep what earlier weeks taught. The pool looks at least once a slot.
 */
export const UNOBSERVED_GAP_MS = 2 * SLOT_MS;

/**
 * What a pool learned of its own demand (docs/reference/kinds.md#adaptive-warm-spares): arrivals
 * per 15-minute slot of the week, weighted over weeks, and a short recent rate. Pure data: time
 * is always passed in.
 */
export interface DemandHistory {
  version: typeof HISTORY_VERSION;
  /** Expected arrivals in each slot of the week; −1 where no week was observed yet. */
  weekly: number[];
  /** The slot being counted (its start, epoch ms) and its arrivals so far. */
  openSlotStart: number;
  openSlotCount: number;
  /** Arrivals per minute as of `recentAt`, decaying with RECENT_TAU_MS. */
  recentRate: number;
  recentAt: number;
  /** When the history was last brought up to date (epoch ms). */
  observedAt: number;
}

export function emptyHistory(now: number): DemandHistory {
  return {
    version: HISTORY_VERSION,
    weekly: new Array<number>(SLOTS_PER_WEEK).fill(-1),
    openSlotStart: slotStart(now),
    openSlotCount: 0,
    recentRate: 0,
    recentAt: now,
    observedAt: now,
  };
}

/** The history brought up to `now`: the slots that ended since are learned. */
export function advanceHistory(history: DemandHistory, now: number): DemandHistory {
  const current = slotStart(now);
  if (current <= history.openSlotStart)
    return { ...history, observedAt: Math.max(now, history.observedAt) };
  const weekly = [...history.weekly];
  if (now - history.observedAt <= UNOBSERVED_GAP_MS) {
    let count = history.openSlotCount;
    const slots = Math.min((current - history.openSlotStart) / SLOT_MS, SLOTS_PER_WEEK);
    for (let i = 0; i < slots; i++) {
      learn(weekly, slotOf(history.openSlotStart + i * SLOT_MS), count);
      count = 0;
    }
  }
  return { ...history, weekly, openSlotStart: current, openSlotCount: 0, observedAt: now };
}

function learn(weekly: number[], slot: number, count: number): void {
  const before = weekly[slot] ?? -1;
  weekly[slot] = before < 0 ? count : before + WEEK_WEIGHT * (count - before);
}

/** The history with one more lease arrival at `now`. */
export function recordArrival(history: DemandHistory, now: number): DemandHistory {
  const advanced = advanceHistory(history, now);
  return {
    ...advanced,
    openSlotCount: advanced.openSlotCount + 1,
    recentRate: recentRate(advanced, now) + 60_000 / RECENT_TAU_MS,
    recentAt: now,
  };
}

/** Arrivals per minute lately: each arrival counts 1/τ, fading with e^(−age/τ). */
export function recentRate(history: DemandHistory, now: number): number {
  const age = Math.max(0, now - history.recentAt);
  return history.recentRate * Math.exp(-age / RECENT_TAU_MS);
}

/** The learned arrivals per minute in a slot of the week, or undefined before any week taught it. */
export function expectedRate(history: DemandHistory, slot: number): number | undefined {
  const count = history.weekly[slot] ?? -1;
  return count < 0 ? undefined : count / (SLOT_MS / 60_000);
}

/** The highest learned rate, and its slot, in the slots that `[from, to]` touches. */
export function peakLearnedRate(
  history: DemandHistory,
  from: number,
  to: number,
): { rate: number; slot: number } | undefined {
  let peak: { rate: number; slot: number } | undefined;
  const slots = Math.min(
    Math.floor((slotStart(to) - slotStart(from)) / SLOT_MS),
    SLOTS_PER_WEEK - 1,
  );
  for (let i = 0; i <= slots; i++) {
    const slot = slotOf(from + i * SLOT_MS);
    const rate = expectedRate(history, slot);
    if (rate !== undefined && (!peak || rate > peak.rate)) peak = { rate, slot };
  }
  return peak;
}
