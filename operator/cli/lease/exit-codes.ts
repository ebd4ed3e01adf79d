/** The lease commands' exit codes, which CI scripts branch on (docs/reference/cli.md). */
export const EXIT = {
  ok: 0,
  /** Anything else went wrong: the API could not be reached, a request was refused. */
  error: 1,
  /** A flag, a value or the management access is wrong; nothing was created. */
  badInput: 2,
  /** The lease was not bound within --timeout; it was deleted. */
  timeout: 3,
  /** The lease failed (or its pool does not exist); it was deleted. */
  leaseFailed: 4,
  /** Interrupted (Ctrl-C, or the SIGTERM of a cancelled CI job); the lease was deleted. As a shell reports Ctrl-C. */
  interrupted: 130,
} as const;

/** Ends a command with a message on stderr and this exit code. */
export class CommandExit extends Error {
  override name = 'CommandExit';
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const badInput = (message: string): CommandExit => new CommandExit(EXIT.badInput, message);
