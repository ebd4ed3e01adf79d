import type { ClusterPool } from '../../../client/api/resources.js';

/** A pool's spare targets by weekday and time of day (docs/reference/kinds.md#spare-schedules). */
export type PoolSchedule = NonNullable<ClusterPool['spec']['schedule']>;

/** The rule that holds the moment, if one does, and when that can next change. */
export interface ScheduleReading {
  rule?: { index: number; warmSpares: number; label: string };
  /** Epoch ms of the next start or end of a window, in the schedule's time zone. */
  nextChangeAt: number;
}

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const DAY_MINUTES = 24 * 60;
const WEEK_MINUTES = 7 * DAY_MINUTES;
const MINUTE_MS = 60_000;
/** Formatters by zone: making one is costly, and the names the schema admits are few. */
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The formatter of an IANA zone, or undefined for a name the runtime does not know (the schema
 * admits the shape of a name, not its existence).
 */
function formatter(timeZone: string): Intl.DateTimeFormat | undefined {
  const known = formatters.get(timeZone);
  if (known) return known;
  try {
    const made = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, made);
    return made;
  } catch {
    return undefined;
  }
}

export function knownTimeZone(timeZone: string): boolean {
  return formatter(timeZone) !== undefined;
}

/** Minutes since Monday 00:00 of the local week at `ms` (fractional: seconds and ms count). */
function weekMinute(format: Intl.DateTimeFormat, ms: number): number {
  const parts = Object.fromEntries(format.formatToParts(ms).map((p) => [p.type, p.value]));
  const day = DAYS.indexOf(parts.weekday ?? '');
  const seconds = Number(parts.second) + (((ms % 1000) + 1000) % 1000) / 1000;
  return day * DAY_MINUTES + Number(parts.hour) * 60 + Number(parts.minute) + seconds / 60;
}

function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** The minute of the week of every start and end of the rules' windows. */
function boundaries(schedule: PoolSchedule): number[] {
  const found: number[] = [];
  for (const rule of schedule.rules)
    for (const day of rule.days) {
      const base = DAYS.indexOf(day) * DAY_MINUTES;
      found.push(base + minutesOf(rule.from), (base + minutesOf(rule.to)) % WEEK_MINUTES);
    }
  return found;
}

/** The signed distance from `from` to `to` around the week, in (−half a week, half a week]. */
function aroundWeek(from: number, to: number): number {
  const ahead = (((to - from) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES;
  return ahead > WEEK_MINUTES / 2 ? ahead - WEEK_MINUTES : ahead;
}

/**
 * The epoch ms at which the local week next shows `target` after `now`: the plain distance,
 * corrected for a change of offset on the way (daylight saving time) by reading the zone again.
 */
function instantOf(format: Intl.DateTimeFormat, now: number, target: number): number {
  let ahead = (((target - weekMinute(format, now)) % WEEK_MINUTES) + WEEK_MINUTES) % WEEK_MINUTES;
  if (ahead === 0) ahead = WEEK_MINUTES;
  let at = now + ahead * MINUTE_MS;
  for (let i = 0; i < 2; i++) at += aroundWeek(weekMinute(format, at), target) * MINUTE_MS;
  return Math.max(at, now + 1);
}

function label(rule: PoolSchedule['rules'][number], index: number, zone: string): string {
  return `schedule rule ${index + 1} (${rule.days.join(',')} ${rule.from}–${rule.to} ${zone})`;
}

/**
 * Which rule holds at `now` in the schedule's zone (the first whose window holds it), and when
 * that can next change; undefined for a zone the runtime does not know.
 */
export function readSchedule(schedule: PoolSchedule, now: number): ScheduleReading | undefined {
  const format = formatter(schedule.timeZone);
  if (!format) return undefined;
  const local = weekMinute(format, now);
  const day = DAYS[Math.floor(local / DAY_MINUTES)] ?? '';
  const inDay = local % DAY_MINUTES;
  const index = schedule.rules.findIndex(
    (rule) =>
      (rule.days as string[]).includes(day) &&
      minutesOf(rule.from) <= inDay &&
      inDay < minutesOf(rule.to),
  );
  const next = Math.min(...boundaries(schedule).map((b) => instantOf(format, now, b)));
  const rule = schedule.rules[index];
  return {
    ...(rule
      ? {
          rule: {
            index,
            warmSpares: rule.warmSpares,
            label: label(rule, index, schedule.timeZone),
          },
        }
      : {}),
    nextChangeAt: next,
  };
}
