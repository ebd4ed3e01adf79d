import type { ConditionUpdate } from '../../api/conditions.js';
import type { Wait } from '../../reconcile/verdict.js';
import { waiting } from '../../reconcile/verdict.js';

/** On a build bundle: its Jobs and VMs stop before its storage goes (the garbage collector would not wait). */
export const FINALIZER_BUILD_CLEANUP = 'guestcluster.opdev.io/bundle-build-cleanup';
/** True once a finished build's work objects are gone. */
export const CLEANED_UP = 'BuildCleanedUp';

/**
 * The build's reasons besides the bundle's Ready contract (bundles/bundle-conditions.ts) and the
 * failures' own (docs/reference/kinds.md#bundle-phases-and-conditions).
 */
export const BUILD_REASON = {
  building: 'Building',
  waitingForInputs: 'WaitingForInputs',
  /** The pull secret exists but cannot be used; the message says what is wrong, never its content. */
  invalidPullSecret: 'InvalidPullSecret',
  timedOut: 'BuildTimedOut',
  stageCompleted: 'StageCompleted',
  inProgress: 'InProgress',
  createRefused: 'CreateRefused',
} as const;

export function ready(status: 'True' | 'False', reason: string, message: string): ConditionUpdate {
  return { type: 'Ready', status, reason, message };
}

/** A stage that is not done yet: its condition says InProgress, with what it waits for. */
export function inProgress(message: string, requeueAfterMs?: number): { wait: Wait } {
  return waiting({
    reason: BUILD_REASON.inProgress,
    message,
    ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
  });
}
