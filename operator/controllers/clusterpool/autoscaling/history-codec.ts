import { HISTORY_VERSION, emptyHistory, type DemandHistory } from './demand-history.js';
import { SLOTS_PER_WEEK } from './week-slots.js';

/**
 * The longest text a stored history may be: a full week at 1,000 arrivals a slot stays under
 * 3 KiB, so anything much longer was not written by the pool.
 */
export const MAX_ENCODED_CHARS = 8 * 1024;

interface Encoded {
  v: number;
  /** Slot counts in hundredths, base 36, "." between slots, "-" for a slot not learned yet. */
  w: string;
  /** [open slot start, its count, recent rate in thousandths per minute, recent at, observed at] */
  o: number[];
}

/** A history as compact text, for a ConfigMap key or a status field. */
export function encodeHistory(history: DemandHistory): string {
  const w = history.weekly
    .map((count) => (count < 0 ? '-' : Math.round(count * 100).toString(36)))
    .join('.');
  const o = [
    history.openSlotStart,
    history.openSlotCount,
    Math.round(history.recentRate * 1000),
    history.recentAt,
    history.observedAt,
  ];
  return JSON.stringify({ v: HISTORY_VERSION, w, o } satisfies Encoded);
}

/**
 * The history a text holds, or a fresh one and the reason when it holds none: another version,
 * or text that is not the pool's (where it is kept, others may be able to write it, so nothing
 * in it is trusted beyond numbers in range).
 */
export function decodeHistory(
  text: string | undefined,
  now: number,
): { history: DemandHistory; problem?: string } {
  if (!text) return { history: emptyHistory(now) };
  const fresh = (problem: string): { history: DemandHistory; problem: string } => ({
    history: emptyHistory(now),
    problem,
  });
  if (text.length > MAX_ENCODED_CHARS)
    return fresh(`the stored history is ${text.length} characters, over ${MAX_ENCODED_CHARS}`);
  let parsed: Partial<Encoded>;
  try {
    parsed = JSON.parse(text) as Partial<Encoded>;
  } catch {
    return fresh('the stored history is not JSON');
  }
  if (parsed.v !== HISTORY_VERSION)
    return fresh(`the stored history has version ${String(parsed.v)}, not ${HISTORY_VERSION}`);
  const weekly = typeof parsed.w === 'string' ? parseWeekly(parsed.w) : undefined;
  const o = parsed.o;
  const numbers =
    Array.isArray(o) && o.length === 5 && o.every((n) => Number.isSafeInteger(n) && n >= 0);
  if (!weekly || !numbers) return fresh('the stored history is malformed');
  const [openSlotStart, openSlotCount, rate, recentAt, observedAt] = o;
  return {
    history: {
      version: HISTORY_VERSION,
      weekly,
      openSlotStart: openSlotStart!,
      openSlotCount: openSlotCount!,
      recentRate: rate! / 1000,
      recentAt: recentAt!,
      observedAt: observedAt!,
    },
  };
}

function parseWeekly(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== SLOTS_PER_WEEK) return undefined;
  const weekly: number[] = [];
  for (const part of parts) {
    if (part === '-') {
      weekly.push(-1);
      continue;
    }
    if (!/^[0-9a-z]{1,6}$/.test(part)) return undefined;
    weekly.push(parseInt(part, 36) / 100);
  }
  return weekly;
}
