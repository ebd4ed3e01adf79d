import type { Pod } from '../../kube/workloads.js';
import { PREP_CONTAINER } from './prep-job.js';

/** Why a prep Job failed, from its last failed pod. */
export interface PrepFailure {
  /** The bundle-prep step (Download, Verify, …), or undefined when the pod did not say. */
  step: string | undefined;
  message: string;
}

const STEP = /^[A-Z][A-Za-z]*$/;

/**
 * Reads the failure of the most recently finished failed pod of a prep Job: bundle-prep writes
 * `{"step": …, "message": …}` as its termination message (ADR 0005); anything else (a crash's log
 * tail, a killed container) is reported as it is.
 */
export function readPrepFailure(pods: readonly Pod[]): PrepFailure {
  const terminated = pods
    .map((pod) => pod.status?.containerStatuses?.find((c) => c.name === PREP_CONTAINER))
    .map((status) => status?.state?.terminated)
    .filter((t) => t !== undefined && t.exitCode !== 0)
    .sort((a, b) => (a!.finishedAt ?? '').localeCompare(b!.finishedAt ?? ''));
  const last = terminated[terminated.length - 1];
  if (!last) return { step: undefined, message: 'no failed pod of the Job was found' };
  const text = (last.message ?? '').trim();
  try {
    const parsed = JSON.parse(text) as { step?: unknown; message?: unknown };
    if (
      typeof parsed.step === 'string' &&
      STEP.test(parsed.step) &&
      typeof parsed.message === 'string'
    )
      return { step: parsed.step, message: parsed.message };
  } catch {
    // Not bundle-prep's JSON: use the text.
  }
  const reason = last.reason ? ` (${last.reason})` : '';
  return {
    step: undefined,
    message: text || `the container exited with code ${last.exitCode}${reason}`,
  };
}
