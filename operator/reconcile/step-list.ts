import { ApiError } from '../../client/kube/api-error.js';
import { CreateRefused, OwnershipConflictError, StepFailure } from './step-errors.js';
import type { Nothing, Verdict, Wait } from './verdict.js';

/*
 * The step engine (docs/adr/0041-one-step-engine.md): one pass of a controller that provisions
 * something is an ordered list of ensure-steps, run on every pass (level-based: what holds is
 * checked again, what is missing is made). It knows nothing of what it provisions.
 *
 * - `Step<In, Out>`: one ensure-step. `run` gets what the steps before it handed on (`In`) and
 *   answers a `Verdict` (verdict.ts): `holds(out)` hands `out` on, `recorded(out)` too but
 *   ends the pass before the next step that is not `recordsOnly`, `waiting(why)` and
 *   `failed(failure)` end it. Outputs are named fields, merged into the hand-on; the list's type
 *   says which fields each step may read, so the order is checked by the compiler.
 * - `steps<In>().then(a).then(b)`: a list, typed by what it hands on; `runSteps(list, input,
 *   policy)` runs it and answers one verdict for the whole list (a list's verdict can be a step's,
 *   so a stage of steps is one step of a longer list).
 * - Thrown errors (step-errors.ts): a `StepFailure` is the step's `fail`; an
 *   `OwnershipConflictError` fails with the step's `conflict` reason; an error the policy calls a
 *   wait (`waitFor`) is that wait; API errors and `CreateRefused` are thrown on (retried with
 *   backoff); any other error fails with the policy's `unexpected` reason, or is thrown on.
 * - `RecordedObjects` (recorded-objects.ts): the objects an owner made, recorded by role, name
 *   and UID in its status, verified by UID (lost, replaced) on every later pass;
 *   `ensureRecorded` records an object before anything uses it.
 * - `current` (object-source.ts): an object from the cache, else a live read.
 */

/** One ensure-step: what it ensures, and how it answers. */
export interface Step<In, Out extends object, W extends Wait = Wait> {
  /** What it ensures, for the log and for reading the list. */
  readonly name: string;
  /** The reason an ownership conflict in this step fails the owner with. */
  readonly conflict?: string;
  /**
   * The step reads and records, and makes nothing a record could be embedded in: after a record
   * the pass goes on through such steps (so records are written together) and stops before the
   * first other one.
   */
  readonly recordsOnly?: boolean;
  readonly run: (input: In) => Verdict<Out, W> | Promise<Verdict<Out, W>>;
}

/** `In` with a step's output merged in: a later field replaces an earlier one of its name. */
export type HandOn<In, Out> = Omit<In, keyof Out> & Out;

/** A step of a list whose hand-on types the list itself keeps. */
type ListedStep<W extends Wait> = Step<object, object, W>;

/** An ordered list of steps that starts from `In` and hands on `Out` when every step holds. */
export class StepList<In extends object, Out extends object, W extends Wait = Wait> {
  private constructor(readonly steps: readonly ListedStep<W>[]) {}

  static empty<In extends object, W extends Wait>(): StepList<In, In, W> {
    return new StepList<In, In, W>([]);
  }

  /** The list with `step` at its end, which reads what the list hands on so far. */
  then<Next extends object>(step: Step<Out, Next, W>): StepList<In, HandOn<Out, Next>, W> {
    // The list's type parameters carry what each step reads; the steps themselves are kept
    // without them.
    return new StepList([...this.steps, step as unknown as ListedStep<W>]);
  }
}

/** A list with no steps yet, starting from `In`. */
export function steps<In extends object = Nothing, W extends Wait = Wait>(): StepList<In, In, W> {
  return StepList.empty<In, W>();
}

/** How a list's thrown errors are answered, besides what every list does (step-errors.ts). */
export interface StepPolicy<W extends Wait> {
  /** An error that means "wait" rather than "fail" here, as a wait; else undefined. */
  waitFor?: (error: unknown) => W | undefined;
  /**
   * The reason an unexpected error (none of step-errors.ts, not an API error) fails the owner
   * with; without one it is thrown on, and the pass is retried with backoff.
   */
  unexpected?: string;
}

/**
 * Runs the steps in order until one does not hold, handing each the outputs of those before it;
 * a record ends the pass before the first step after it that is not `recordsOnly`.
 */
export async function runSteps<In extends object, Out extends object, W extends Wait>(
  list: StepList<In, Out, W>,
  input: In,
  policy: StepPolicy<W> = {},
): Promise<Verdict<Out, W>> {
  let handOn: object = input;
  let recordedAny = false;
  for (const step of list.steps) {
    if (recordedAny && !step.recordsOnly) break;
    const verdict = await attempt(step, handOn, policy);
    if ('wait' in verdict || 'fail' in verdict) return verdict;
    const out = 'holds' in verdict ? verdict.holds : verdict.record;
    handOn = { ...handOn, ...out };
    recordedAny ||= 'record' in verdict;
  }
  // Every step ran on the hand-on of those before it: it is what the list's type says.
  const result = handOn as Out;
  return recordedAny ? { record: result } : { holds: result };
}

async function attempt<W extends Wait>(
  step: ListedStep<W>,
  input: object,
  policy: StepPolicy<W>,
): Promise<Verdict<object, W>> {
  try {
    return await step.run(input);
  } catch (error) {
    return answerError(error, step, policy);
  }
}

function answerError<W extends Wait>(
  error: unknown,
  step: ListedStep<W>,
  policy: StepPolicy<W>,
): Verdict<never, W> {
  const wait = policy.waitFor?.(error);
  if (wait) return { wait };
  if (error instanceof StepFailure) return { fail: error };
  if (error instanceof OwnershipConflictError && step.conflict)
    return { fail: new StepFailure(step.conflict, error.message) };
  const retried =
    !(error instanceof Error) || error instanceof ApiError || error instanceof CreateRefused;
  if (retried || !policy.unexpected) throw error;
  return { fail: new StepFailure(policy.unexpected, error.message) };
}
