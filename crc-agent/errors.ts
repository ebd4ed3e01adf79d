/**
 * A failure the agent reports with a hint that tells the person reading the Job's log what to fix.
 */
export class AgentError extends Error {
  override name = 'AgentError';
  constructor(
    message: string,
    readonly hint: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The VMI this run was started for is gone, replaced or no longer Running: the run must stop. */
export class VmiNotCurrentError extends Error {
  override name = 'VmiNotCurrentError';
  constructor(detail: string) {
    super(`CRC VirtualMachineInstance is no longer current: ${detail}`);
  }
}

/** A retry loop ran out of time; the message carries the last error seen. */
export class RetryTimeoutError extends Error {
  override name = 'RetryTimeoutError';
}

/** The run was cancelled (signal, or the VMI stopped being current). */
export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor(readonly reason: unknown) {
    super(`cancelled: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/** The message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
