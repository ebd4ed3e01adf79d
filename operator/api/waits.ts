import type { Condition } from './conditions.js';
import { findCondition } from './conditions.js';

/**
 * The rule for a wait that needs a person (docs/reference/kinds.md#waits-that-need-a-person):
 * the condition `type` of the pass's result, when the pass is what turned it False with one of
 * `needsPerson`'s reasons, else undefined. Its caller records it as one Warning Event (reason and
 * message the condition's). It is decided from the stored condition the pass started from, not
 * from memory, so later passes of the same wait, also after a restart, record nothing; a wait
 * that ends and starts again is announced again. Call it with what was written: a pass whose
 * write did not happen (a conflict) announces nothing.
 */
export function startedWait(
  before: readonly Condition[] | undefined,
  after: readonly Condition[] | undefined,
  type: string,
  needsPerson: ReadonlySet<string>,
): Condition | undefined {
  const now = findCondition(after, type);
  if (!now || now.status !== 'False' || !needsPerson.has(now.reason)) return undefined;
  const was = findCondition(before, type);
  return was?.status === 'False' && was.reason === now.reason ? undefined : now;
}
