import type { ExecStreams, SshConnection } from './ssh-connection.js';

/** A command for the guest, with what may be shown of it in logs and errors. */
export interface GuestCommand {
  command: string;
  /** Shown instead of `command` (which may carry file contents) in errors and logs. */
  display?: string;
  /** The output holds credentials: never put it into an error. */
  secretOutput?: boolean;
}

/** A guest command that exited non-zero; the message holds the command and its output. */
export class GuestCommandError extends Error {
  override name = 'GuestCommandError';
  constructor(
    readonly display: string,
    readonly exitCode: number,
    readonly output: string,
  ) {
    super(
      `guest command "${display}" exited with status ${exitCode}: ${output.trim().slice(-2000)}`,
    );
  }
}

/**
 * Something that runs shell commands on the guest (the SSH connection, or a fake in unit tests).
 */
export interface GuestExec {
  exec(command: string, streams?: ExecStreams): Promise<{ exitCode: number; output: string }>;
}

const asCommand = (command: GuestCommand | string): GuestCommand =>
  typeof command === 'string' ? { command } : command;

/** Runs guest commands: "unprivileged" as written, "privileged" with `sudo ` in front. */
export class GuestShell {
  constructor(private readonly connection: GuestExec) {}

  static over(connection: SshConnection): GuestShell {
    return new GuestShell(connection);
  }

  /** Runs the command as written; resolves with its output, rejects on a non-zero exit. */
  async run(command: GuestCommand | string): Promise<string> {
    const { command: text, display, secretOutput } = asCommand(command);
    const result = await this.connection.exec(text);
    if (result.exitCode !== 0)
      throw new GuestCommandError(
        display ?? text,
        result.exitCode,
        secretOutput ? '(output withheld: it may hold credentials)' : result.output,
      );
    return result.output;
  }

  /** Runs the command as root through passwordless sudo. */
  privileged(command: GuestCommand | string): Promise<string> {
    const { command: text, display, secretOutput } = asCommand(command);
    return this.run({
      command: `sudo ${text}`,
      display: `sudo ${display ?? text}`,
      ...(secretOutput ? { secretOutput } : {}),
    });
  }
}

/** Double-quotes a path the way Go's %q does for plain ASCII paths. */
export function quotePath(path: string): string {
  return JSON.stringify(path);
}

/**
 * Writes (overwrites) a file as root, mode 0644, without SFTP
 * (docs/reference/agent-protocol.md#writing-files). The display form hides the content.
 */
export function writeFileCommand(path: string, content: string): GuestCommand {
  const data = Buffer.from(content).toString('base64');
  const quoted = quotePath(path);
  const command = (payload: string): string =>
    `sudo install -m 0644 -D /dev/null ${quoted} && echo ${payload} | base64 --decode | sudo tee ${quoted} > /dev/null`;
  return { command: command(data), display: command(`<${content.length} bytes>`) };
}

/**
 * Appends to a file as root, creating it (0644) when missing
 * (docs/reference/agent-protocol.md#guest-fixups).
 */
export function appendFileCommand(path: string, content: string): GuestCommand {
  const data = Buffer.from(content).toString('base64');
  const quoted = quotePath(path);
  const command = (payload: string): string =>
    `sudo test -f ${quoted} || sudo install -m 0644 -D /dev/null ${quoted}; echo ${payload} | base64 --decode | sudo tee -a ${quoted} > /dev/null`;
  return { command: command(data), display: command(`<${content.length} bytes>`) };
}
