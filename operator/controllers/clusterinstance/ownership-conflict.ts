import { InstanceFailure } from './instance-status.js';

/** An object the instance needs exists but belongs to someone else (spec §2.3.6, §2.3.12). */
export class OwnershipConflictError extends Error {
  override name = 'OwnershipConflictError';
}

/** Runs a step whose ownership conflicts fail the instance with `reason`. */
export async function conflictAs<T>(reason: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof OwnershipConflictError) throw new InstanceFailure(reason, error.message);
    throw error;
  }
}
