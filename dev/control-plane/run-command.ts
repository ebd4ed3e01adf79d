import { spawn } from 'node:child_process';

export interface CommandResult {
  stdout: string;
  stderr: string;
}

/** A command that exited non-zero; its output is kept for the error message. */
export class CommandFailedError extends Error {
  override name = 'CommandFailedError';
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(
      `${command} exited with ${exitCode ?? 'a signal'}: ${(stderr || stdout).trim().slice(-4000)}`,
    );
  }
}

/** Runs a program to completion and collects its output; rejects on a non-zero exit. */
export function runCommand(
  program: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    // A program that exits without reading its input closes the pipe under our write (EPIPE);
    // its exit status, below, says how it ended.
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      const result = {
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      if (code === 0) resolve(result);
      else
        reject(
          new CommandFailedError([program, ...args].join(' '), code, result.stdout, result.stderr),
        );
    });
    child.stdin.end(options.input ?? '');
  });
}
