import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ControlPlaneError } from './errors.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * On Linux, `setpriv --pdeathsig` makes the kernel kill the child when its parent dies, however the
 * parent dies (SIGKILL included), so an interrupted test run leaves no etcd or apiserver behind.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((candidate) => existsSync(candidate));

/** A long-running child process whose output goes to a log file, and whose death is noticed. */
export class ManagedProcess {
  readonly exited: Promise<ProcessExit>;
  private exit: ProcessExit | undefined;
  private spawnError: Error | undefined;

  private constructor(
    readonly name: string,
    readonly logPath: string,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      // Spawn failures (a missing binary) emit 'error' and no 'exit'.
      child.once('error', (error) => {
        this.spawnError = error;
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
    });
  }

  static start(
    name: string,
    binary: string,
    args: readonly string[],
    logPath: string,
  ): ManagedProcess {
    const logFd = openSync(logPath, 'a');
    const [program, programArgs] = SETPRIV
      ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', binary, ...args]]
      : [binary, [...args]];
    // Go's collector at a quarter of its default pace (GOGC=400, unless set): a throwaway control
    // plane on a small machine has memory to spare and CPU to save (about 8% of a test run's).
    const env = { ...process.env, GOGC: process.env.GOGC ?? '400' };
    const child = spawn(program, programArgs, { stdio: ['ignore', logFd, logFd], env });
    closeSync(logFd);
    return new ManagedProcess(name, logPath, child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** An error that names this process, how it ended, the last lines of its log and the log's path. */
  async failure(what: string): Promise<ControlPlaneError> {
    const ended = this.spawnError
      ? `could not start: ${this.spawnError.message}`
      : this.exit
        ? `exited with ${this.exit.code ?? this.exit.signal}`
        : 'is still running';
    let tail = '';
    try {
      tail = (await readFile(this.logPath, 'utf8')).trim().split('\n').slice(-15).join('\n');
    } catch {
      // No log yet: the message still names the path.
    }
    const hint = /address already in use/i.test(tail)
      ? ' Its port is taken by another process (a port clash).'
      : '';
    return new ControlPlaneError(
      `${this.name} ${what}: it ${ended}.${hint} Its log is ${this.logPath}${tail ? `; last lines:\n${tail}` : ''}`,
    );
  }

  /** Sends SIGKILL (no shutdown of its own) and resolves once the process has exited. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Sends SIGTERM, then SIGKILL after `graceMs`, and resolves once the process has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
