import type { Condition } from '../../client/api/conditions.js';
import { metaTime } from '../../client/kube/meta-time.js';

// A condition and how to find one are shared with the lease client (client/api/conditions.ts).
export type { Condition } from '../../client/api/conditions.js';
export { findCondition } from '../../client/api/conditions.js';

export type ConditionUpdate = Omit<Condition, 'lastTransitionTime'>;

/**
 * Sets a condition in a list, returning the new list. lastTransitionTime changes only when the
 * status flips, so it tells how long a state has held.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  update: ConditionUpdate,
  now: number,
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((c) => c.type === update.type);
  const previous = index >= 0 ? list[index] : undefined;
  const lastTransitionTime =
    previous && previous.status === update.status ? previous.lastTransitionTime : metaTime(now);
  const next: Condition = { ...update, lastTransitionTime };
  if (index >= 0) list[index] = next;
  else list.push(next);
  return list;
}
