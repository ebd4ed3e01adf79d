/** The steps of a bundle-prep run, in order; a failure names the step it happened in. */
export const PREP_STEPS = [
  'Preflight',
  'Download',
  'Verify',
  'Extract',
  'ReadMetadata',
  'Convert',
  'Publish',
] as const;

export type PrepStep = (typeof PREP_STEPS)[number];

/** A failed step, with a hint that tells the person reading the Job's log what to fix. */
export class PrepStepError extends Error {
  override name = 'PrepStepError';
  constructor(
    readonly step: PrepStep,
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
