/**
 * The week in 15-minute slots, Monday 00:00 UTC first (docs/reference/kinds.md#adaptive-warm-spares).
 * The learned shape is the pool's own, so one fixed zone is enough to learn it; schedules in the
 * pool's time zone are a separate concern.
 */
export const SLOT_MS = 15 * 60_000;
export const SLOTS_PER_WEEK = (7 * 24 * 60 * 60_000) / SLOT_MS;

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
// 1970-01-01 was a Thursday: Monday 1970-01-05 starts slot 0.
const FIRST_MONDAY_MS = 4 * 24 * 60 * 60_000;

/** The slot of the week that `ms` (epoch milliseconds) falls in. */
export function slotOf(ms: number): number {
  const index = Math.floor((ms - FIRST_MONDAY_MS) / SLOT_MS);
  return ((index % SLOTS_PER_WEEK) + SLOTS_PER_WEEK) % SLOTS_PER_WEEK;
}

/** The epoch milliseconds at which the slot holding `ms` began. */
export function slotStart(ms: number): number {
  return Math.floor(ms / SLOT_MS) * SLOT_MS;
}

/** "Tue 09:00": the slot's start, as a person reads it (UTC). */
export function slotLabel(slot: number): string {
  const minutes = slot * 15;
  const day = DAYS[Math.floor(minutes / (24 * 60))] ?? '?';
  const hh = String(Math.floor(minutes / 60) % 24).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${day} ${hh}:${mm}`;
}
