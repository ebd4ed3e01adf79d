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

/** A program the agent runs is not on its PATH: the image lacks it, whatever the inputs. */
export class MissingToolError extends Error {
  override name = 'MissingToolError';
  constructor(readonly tool: string) {
    super(
      `the agent's image has no "${tool}" on its PATH: the image of the build and prep Jobs (the operator's CRC_AGENT_IMAGE) must carry oc, coreos-installer and qemu-img (docs/bundle-build.md#prerequisites)`,
    );
  }
}

/** Whether an error is a spawn that found no such program. */
export function isSpawnNotFound(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return code === 'ENOENT' && typeof syscall === 'string' && syscall.startsWith('spawn');
}
