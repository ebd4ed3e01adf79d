import type { StepFailure } from './step-errors.js';

/** Why a pass waits: the reason and message the owner reports, and when to look again. */
export interface Wait {
  reason: string;
  message: string;
  /** Looked at again after this long: nothing reports when it changes. */
  requeueAfterMs?: number;
}

/** The hand-on of a step that hands nothing on. */
export type Nothing = Record<never, never>;

const NOTHING: Nothing = Object.freeze({});

/**
 * What a step says, and what a whole list says (docs/adr/0041-one-step-engine.md):
 * - `holds`: what it ensures holds; its output is handed on to the steps after it;
 * - `record`: it holds, and it put a value into the owner's status draft that must be durable
 *   before anything embeds it: the pass goes on only through steps that only read and record;
 * - `wait`: not yet, and why;
 * - `fail`: the owner fails with this reason.
 */
export type Verdict<Out, W = Wait> =
  { holds: Out } | { record: Out } | { wait: W } | { fail: StepFailure };

export function holds(): { holds: Nothing };
export function holds<Out>(out: Out): { holds: Out };
export function holds<Out>(out?: Out): { holds: Out | Nothing } {
  return { holds: out ?? NOTHING };
}

export function recorded(): { record: Nothing };
export function recorded<Out>(out: Out): { record: Out };
export function recorded<Out>(out?: Out): { record: Out | Nothing } {
  return { record: out ?? NOTHING };
}

export function waiting<W>(wait: W): { wait: W } {
  return { wait };
}

export function failed(failure: StepFailure): { fail: StepFailure } {
  return { fail: failure };
}

/**
 * The verdict with its output made into another (a helper's object into a step's named output);
 * a wait or a failure is passed on as it is.
 */
export function mapVerdict<A, B, W>(verdict: Verdict<A, W>, map: (out: A) => B): Verdict<B, W> {
  if ('holds' in verdict) return { holds: map(verdict.holds) };
  if ('record' in verdict) return { record: map(verdict.record) };
  return verdict;
}
