import { ApiError } from '../../../kube/api-error.js';
import { OwnershipConflictError } from './ownership.js';
import { InstanceFailure, Reason } from './reasons.js';

/** Why the instance is not Ready yet (phase Provisioning, Ready=False with reason and message). */
export interface Wait {
  reason: string;
  message: string;
  /** Looked at again after this long: nothing reports when it changes. */
  requeueAfterMs?: number;
}

/**
 * The step put a value into the draft that must be durable before anything embeds it (a host
 * name a certificate is issued for, the disk and key a clone is bound to, a placement): the pass
 * stops, the draft is written, and the pass its event brings goes on.
 */
export const RECORD = Object.freeze({ record: true } as const);
export type Recorded = typeof RECORD;

/** What a step says: nothing when what it ensures holds. */
export type StepResult<W extends Wait = Wait> = W | Recorded | undefined | void;

/** One ensure-step of a pass; the first that does not hold ends the pass. */
export interface Step<W extends Wait = Wait> {
  /** What it ensures, for the log and for reading the list. */
  name: string;
  /** The reason an ownership conflict in this step fails the instance with. */
  conflict?: string;
  /**
   * The step reads and records, and makes nothing a record could be embedded in: after a
   * record the pass goes on through such steps (so records are written together) and stops
   * before the first other one.
   */
  recordsOnly?: boolean;
  run: () => StepResult<W> | Promise<StepResult<W>>;
}

export interface StepPolicy<W extends Wait> {
  /** An error that means "wait" rather than "fail" for this topology, as a wait; else undefined. */
  waitFor?: (error: unknown) => W | undefined;
  /**
   * What an unexpected error (not an API error, not an InstanceFailure) does: `fail` the instance
   * with ReconcileError (docs/reference/instances.md#crc-provisioning), or be `retried` with
   * backoff.
   */
  unexpected: 'fail' | 'retry';
}

/** How a pass ended: every step holds, or the first that does not says why. */
export type PassVerdict<W extends Wait> = { holds: true } | { wait: W } | Recorded;

/**
 * Runs the steps in order, each on every pass (level-based: what holds is checked again, what
 * is missing is made), until one does not hold; a record ends the pass before the first step
 * that could embed it. Ownership conflicts fail the instance with the step's reason; API errors
 * are retried; other errors as the policy says.
 */
export async function runSteps<W extends Wait>(
  steps: readonly Step<W>[],
  policy: StepPolicy<W>,
): Promise<PassVerdict<W>> {
  let recorded = false;
  for (const step of steps) {
    if (recorded && !step.recordsOnly) return RECORD;
    let result: StepResult<W>;
    try {
      result = await step.run();
    } catch (error) {
      const wait = policy.waitFor?.(error);
      if (wait) return { wait };
      throw failure(error, step, policy);
    }
    if (result === RECORD) recorded = true;
    else if (result) return { wait: result as W };
  }
  return recorded ? RECORD : { holds: true };
}

function failure<W extends Wait>(error: unknown, step: Step<W>, policy: StepPolicy<W>): unknown {
  if (error instanceof InstanceFailure || error instanceof ApiError) return error;
  if (error instanceof OwnershipConflictError && step.conflict)
    return new InstanceFailure(step.conflict, error.message);
  if (policy.unexpected === 'retry' || !(error instanceof Error)) return error;
  return new InstanceFailure(Reason.ReconcileError, error.message);
}
