import { sleep } from '../abort.js';
import { CancelledError, errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { retry } from '../retry.js';
import { SshConnection } from '../ssh-connection.js';
import type { CommandResult, ExecStreams, HostKeyVerifier } from '../ssh-connection.js';
import { waitForSsh } from '../wait-for-ssh.js';
import type { BuildTimings } from './build-config.js';
import { BuildFailure } from './build-failure.js';
import { guestScript, scriptCommand, shellWord } from './guest-scripts.js';
import type { GuestScript } from './guest-scripts.js';
import { parseScriptOutput } from './script-output.js';
import type { ScriptOutput } from './script-output.js';
import { packStream, unpackInto } from './tar-streams.js';
import type { TarFile } from './tar-streams.js';

/**
 * Build guests are not known by host key: the live ISO and the installed system have keys of
 * their own, and the installer VM is new each time (docs/adr/0032-bundle-build-guest-side.md). The Job is bound to the VMI
 * instead.
 */
const ANY_HOST_KEY: HostKeyVerifier = { verify: () => true };
const STOP = Symbol('stop');

export interface BuildGuestOptions {
  host: string;
  port: number;
  user: string;
  privateKey: string;
  timings: BuildTimings;
  signal: AbortSignal;
  log: Logger;
}

/** A guest script that exited non-zero; the message carries its last output lines. */
export class GuestScriptError extends Error {
  override name = 'GuestScriptError';
  constructor(
    readonly script: string,
    readonly exitCode: number,
    output: string,
  ) {
    const tail = output.trim().split('\n').slice(-6).join(' | ').slice(-800);
    super(`guest script ${script} exited with status ${exitCode}${tail ? `: ${tail}` : ''}`);
  }
}

/** The SSH connection was lost: the guest rebooted, powered off or went away. */
export class GuestConnectionLost extends Error {
  override name = 'GuestConnectionLost';
}

export interface ScriptRun {
  args?: readonly string[];
  /** Lines the script reads from stdin after its body (secrets: never on a command line). */
  input?: readonly string[];
  /** The output may hold credentials: keep it out of errors. */
  secretOutput?: boolean;
}

/**
 * One build guest over SSH as `core` with the build key: connects when first used and again
 * after the connection is lost (reboots inside the VMI), runs the guest scripts with
 * `sudo bash -s`, and moves files in and out as tar streams.
 */
export class BuildGuest {
  private connection: SshConnection | undefined;

  constructor(private readonly options: BuildGuestOptions) {}

  get endpoint(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  /** Waits for the SSH port, then logs in. */
  async connect(): Promise<void> {
    if (this.connection) return;
    const { host, port, timings, signal } = this.options;
    await waitForSsh(
      { host, port },
      {
        probeTimeoutMs: timings.sshProbeTimeoutMs,
        intervalMs: timings.retryIntervalMs,
        timeoutMs: timings.sshWaitTimeoutMs,
        signal,
      },
    );
    this.connection = await SshConnection.connect({
      host,
      port,
      username: this.options.user,
      privateKey: this.options.privateKey,
      timeoutMs: timings.sshConnectTimeoutMs,
      signal,
      hostKeys: ANY_HOST_KEY,
    });
  }

  async exec(command: string, streams?: ExecStreams): Promise<CommandResult> {
    await this.connect();
    try {
      return await this.connection!.exec(command, streams);
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      this.drop();
      throw new GuestConnectionLost(
        `lost the SSH connection to ${this.endpoint}: ${errorMessage(error)}`,
      );
    }
  }

  /** Runs a guest script as root; rejects on a non-zero exit. */
  async script(name: GuestScript, run: ScriptRun = {}): Promise<ScriptOutput> {
    const input = [guestScript(name), ...(run.input ?? [])].join('\n') + '\n';
    const result = await this.exec(scriptCommand(run.args ?? []), { input });
    if (result.exitCode !== 0)
      throw new GuestScriptError(
        name,
        result.exitCode,
        run.secretOutput ? '(output withheld: it may hold credentials)' : result.output,
      );
    this.options.log.debug({ script: name }, `Guest script ${name} done`);
    return parseScriptOutput(result.output);
  }

  /**
   * Polls `attempt` every retry interval until it returns a value, reconnecting after a lost
   * connection (the node reboots during MCO rollouts). Timeouts name `what` and the last error.
   */
  async poll<T>(
    what: string,
    timeoutMs: number,
    attempt: () => Promise<T | undefined>,
    onNotYet?: (attempt: number, lastError: string | undefined) => void,
  ): Promise<T> {
    // A BuildFailure ends the wait at once: it is a verdict, not a "not yet".
    let verdict: BuildFailure | undefined;
    const result = await retry<T | typeof STOP>({
      what,
      intervalMs: this.options.timings.retryIntervalMs,
      timeoutMs,
      signal: this.options.signal,
      attempt: async () => {
        try {
          return await attempt();
        } catch (error) {
          if (!(error instanceof BuildFailure)) throw error;
          verdict = error;
          return STOP;
        }
      },
      onNotYet,
    });
    if (verdict) throw verdict;
    return result as T;
  }

  /** Streams files into a folder of the guest, as root. */
  async sendFiles(dir: string, files: readonly TarFile[]): Promise<void> {
    const archive = packStream(files);
    const folder = shellWord(dir);
    const result = await this.exec(
      `sudo install -d -m 0700 ${folder} && sudo tar -x --no-same-owner -C ${folder} -f -`,
      { input: archive },
    );
    if (result.exitCode !== 0)
      throw new Error(
        `unpacking ${files.length} files into ${dir} on the guest failed: ${result.output.trim().slice(-400)}`,
      );
  }

  /** Writes one file as root from stdin (the content never appears on a command line). */
  async writeFile(path: string, content: string, mode = '0600'): Promise<void> {
    const result = await this.exec(`sudo install -D -m ${mode} /dev/stdin ${shellWord(path)}`, {
      input: content,
    });
    if (result.exitCode !== 0)
      throw new Error(`writing ${path} on the guest failed: ${result.output.trim().slice(-400)}`);
  }

  /** Streams a guest folder back as tar and unpacks it into a local folder. */
  async receiveFolder(remote: string, local: string): Promise<string[]> {
    const { sink, done } = unpackInto(local);
    const result = await this.exec(`sudo tar -C ${shellWord(remote)} -cf - .`, {
      stdout: sink,
    });
    if (result.exitCode !== 0) {
      sink.destroy();
      throw new Error(
        `reading ${remote} from the guest failed: ${result.output.trim().slice(-400)}`,
      );
    }
    return done;
  }

  /** The kernel's boot id: changes with every boot, so a reboot can be told from a lost link. */
  async bootId(): Promise<string> {
    const result = await this.exec('cat /proc/sys/kernel/random/boot_id');
    if (result.exitCode !== 0)
      throw new Error(`reading the boot id failed: ${result.output.trim()}`);
    return result.output.trim();
  }

  /** Reboots inside the VMI and waits until the guest is back with a new boot id. */
  async reboot(): Promise<void> {
    const before = await this.bootId();
    await this.powerCommand('sudo systemctl reboot');
    await this.poll(
      'the guest to come back from its reboot',
      this.options.timings.sshWaitTimeoutMs,
      async () => {
        const now = await this.bootId();
        return now !== before ? now : undefined;
      },
    );
  }

  /** Asks the guest to power off (the VMI then ends); resolves once the request was sent. */
  async poweroff(): Promise<void> {
    await this.powerCommand('sudo systemctl poweroff');
  }

  private async powerCommand(command: string): Promise<void> {
    // systemd answers before it goes down, or the link drops first: both mean it was accepted.
    try {
      const result = await this.exec(command);
      if (result.exitCode !== 0 && result.exitCode !== 255)
        throw new Error(
          `"${command}" exited with status ${result.exitCode}: ${result.output.trim()}`,
        );
    } catch (error) {
      if (!(error instanceof GuestConnectionLost)) throw error;
    }
    this.drop();
    // Give the guest a moment to go down before the next probe.
    await sleep(Math.min(this.options.timings.retryIntervalMs, 2_000), this.options.signal);
  }

  drop(): void {
    this.connection?.close();
    this.connection = undefined;
  }

  close(): void {
    this.drop();
  }
}
