import type { ConditionUpdate } from '../../api/conditions.js';

/** Phases of status.phase (docs/reference/kinds.md#bundle-phases-and-conditions). */
export const PHASE = {
  pending: 'Pending',
  preparing: 'Preparing',
  ready: 'Ready',
  failed: 'Failed',
} as const;

/**
 * Reasons of the Ready condition (docs/reference/kinds.md#bundle-phases-and-conditions; part of the
 * compatibility contract).
 */
export const READY_REASON = {
  preparing: 'Preparing',
  prepJobFailed: 'PrepJobFailed',
  bundleReady: 'BundleReady',
  reprovisioning: 'Reprovisioning',
  /** Waits for one of the bundles being prepared to finish (--max-preparing-bundles). */
  waitingForPreparation: 'WaitingForPreparation',
  /** A build that waits for one of the builds running to finish (--max-building-bundles). */
  waitingForBuildSlot: 'WaitingForBuildSlot',
} as const;

/**
 * Besides Ready, the `Prepared` condition says how the last prep went, its reason naming the
 * failed step (`VerifyFailed`, `DownloadFailed`, …), which Ready's contract reason cannot.
 */
export const PREPARED = 'Prepared';

export function preparedCondition(
  outcome: { step: string | undefined; message: string } | 'running' | 'done',
  generation: number | undefined,
): ConditionUpdate {
  if (outcome === 'running')
    return {
      type: PREPARED,
      status: 'Unknown',
      reason: 'PrepRunning',
      message: 'the bundle-prep Job is running',
      observedGeneration: generation,
    };
  if (outcome === 'done')
    return {
      type: PREPARED,
      status: 'True',
      reason: 'PrepSucceeded',
      message: 'the golden disk, SSH key and metadata were published',
      observedGeneration: generation,
    };
  return {
    type: PREPARED,
    status: 'False',
    reason: outcome.step ? `${outcome.step}Failed` : 'PrepFailed',
    message: outcome.message,
    observedGeneration: generation,
  };
}
