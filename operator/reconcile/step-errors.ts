/*
 * The errors a step may throw and what runSteps makes of them (docs/adr/0041-one-step-engine.md).
 * An API error or a refused create is thrown on: the pass is retried with backoff.
 */

/** The owner fails with this reason (phase Failed, Ready=False, the message saying why). */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An object the owner needs exists but belongs to someone else: it is never adopted, changed or
 * deleted. A step that names a `conflict` reason fails the owner with it.
 */
export class OwnershipConflictError extends Error {
  override name = 'OwnershipConflictError';
}

/**
 * The apiserver refused to create an object (a ResourceQuota, an admission policy): nothing is
 * lost meanwhile, and the pass is tried again with backoff until the refusal is lifted.
 */
export class CreateRefused extends Error {
  override name = 'CreateRefused';
}
