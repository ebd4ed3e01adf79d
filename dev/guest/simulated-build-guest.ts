import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { BuildRole } from '../../contracts/bundle-build.js';
import { guestScript, scriptMarker } from '../../crc-agent/bundle-build/guest-scripts.js';
import type { GuestScript } from '../../crc-agent/bundle-build/guest-scripts.js';
import { generateEd25519KeyPair } from '../../crc-agent/ssh-key.js';
import { BUILD_SCRIPTS } from './build-guest-scripts.js';
import type { BuildGuestState } from './build-guest-state.js';
import { freshState, loadState, saveState } from './build-guest-state.js';
import type { CommandOutcome } from './guest-machine.js';
import type { SshMachine } from './guest-ssh-server.js';
import { GuestSshServer } from './guest-ssh-server.js';

/** Failures a test can inject into one build guest. */
export interface BuildGuestFaults {
  /** The live ISO never installs to disk (P5 InstallWait never completes). */
  installNeverCompletes?: boolean;
  /** The RTC offset does not show as system time (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2). */
  ignoresClockOffset?: boolean;
  /** These seal checks fail whatever the state says. */
  failingChecks?: string[];
  /** The cluster operators never settle. */
  neverStable?: boolean;
  /** The hostname DHCP gave the guest (crc unless set). */
  hostname?: string;
}

/** One command the guest received, with the script it recognised and what came on stdin. */
export interface ReceivedCommand {
  command: string;
  script?: string;
  args?: string[];
  /** The lines after the script on stdin (for the tests' leak checks; never logged). */
  stdinLines?: string[];
  stdinBytes: number;
  /** What a script printed on stdout (its result or check lines). */
  answered?: string;
}

export interface SimulatedBuildGuestOptions {
  role: BuildRole;
  vmiUid: string;
  /** Where sshd listens. */
  address: string;
  /** The VMI's spec.domain.clock.utc.offsetSeconds (0 when unset). */
  clockOffsetSeconds: number;
  /** The target's root disk folder: its state and disk.img live there. */
  rootDisk?: string;
  /** The keys core accepts before the disk is installed (cloud-init, or the ISO's ignition). */
  bootKeys: string;
  faults?: BuildGuestFaults;
  /** The guest powered itself off (the VMI must end). */
  onPoweroff?: () => void;
  /** install-to-disk wrote the root disk: the platform lays out disk.img with core's keys. */
  writeRootDisk?: (authorizedKeys: string) => Promise<void>;
  now?: () => number;
}

/**
 * A build guest for tests and the local environment: the installer VM or the target VM of one
 * VMI, with sshd on the VMI's address. It recognises the guest scripts by their first-line
 * marker and answers as a real build guest would (docs/bundle-build.md#stage-map), from a state model that the scripts change (see
 * BUILD_SCRIPTS); it records every command and file it receives. The target goes from the live
 * ISO to the installed system with a reboot inside the same VMI (new host key), keeps its state
 * on its root disk, and its clock is real time plus the VMI's offset; the installer's clock is
 * what the installer-clock script set.
 */
export class SimulatedBuildGuest implements SshMachine {
  readonly guestIp = '10.0.2.2';
  readonly commands: ReceivedCommand[] = [];
  /** Files streamed in (tar, install /dev/stdin), by absolute path. */
  readonly received = new Map<string, Buffer>();
  state: BuildGuestState;
  bootId = randomUUID();
  /** The installer's clock, once set (ms offset from real time). */
  setClockOffsetMs: number | undefined;
  ssh!: GuestSshServer;
  poweredOff = false;
  private readonly liveHostKey = generateEd25519KeyPair().private;
  /**
   * The VMI's port 22, bound for the VMI's whole life: a reboot must not free it, or another
   * process on this host could take it before sshd comes back. Connections while sshd is down
   * are dropped, as a guest that is rebooting drops them.
   */
  private readonly port22 = net.createServer((socket) => {
    if (this.sshUp) this.ssh.accept(socket);
    else socket.destroy();
  });
  private sshUp = false;

  private constructor(
    readonly options: SimulatedBuildGuestOptions,
    state: BuildGuestState | undefined,
  ) {
    this.state = state ?? freshState(generateEd25519KeyPair().private);
    this.bootedInstalled = this.state.installed;
  }

  /** Booted from the installed disk (the live ISO otherwise). */
  private bootedInstalled: boolean;

  static async start(options: SimulatedBuildGuestOptions): Promise<SimulatedBuildGuest> {
    const state = options.rootDisk ? await loadState(options.rootDisk) : undefined;
    const guest = new SimulatedBuildGuest(options, state);
    await new Promise<void>((resolve) => guest.port22.listen(0, options.address, resolve));
    guest.startSsh();
    return guest;
  }

  get role(): BuildRole {
    return this.options.role;
  }

  get faults(): BuildGuestFaults {
    return this.options.faults ?? {};
  }

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The guest's `date -u`, in ms. */
  clockMs(): number {
    if (this.setClockOffsetMs !== undefined) return this.now() + this.setClockOffsetMs;
    if (this.faults.ignoresClockOffset) return this.now();
    return this.now() + this.options.clockOffsetSeconds * 1000;
  }

  /** Whether the installed system runs (not the live ISO): what the disk held at boot. */
  get installed(): boolean {
    return this.role === 'target' && this.bootedInstalled;
  }

  authorizedKeys(): string {
    return this.installed ? this.state.authorizedKeys : this.options.bootKeys;
  }

  resolvesApiHost(): boolean {
    return false;
  }

  readsInput(command: string): boolean {
    return /^sudo (bash -s|install -D -m \d+ \/dev\/stdin|install -d -m 0700 \S+ && sudo tar -x)/.test(
      command,
    );
  }

  async run(command: string, input?: Buffer): Promise<CommandOutcome> {
    const record: ReceivedCommand = { command, stdinBytes: input?.length ?? 0 };
    this.commands.push(record);
    if (this.poweredOff) return { exitCode: 255, stderr: 'the guest is off\n' };
    const stdin = input ?? Buffer.alloc(0);
    for (const [pattern, handler] of this.commandTable()) {
      const match = pattern.exec(command);
      if (match) return handler(match, stdin, record);
    }
    return {
      exitCode: 127,
      stderr: `bash: line 1: ${command.split(' ')[0]}: command not found\n`,
    };
  }

  /** The commands the build agent sends besides scripts, with their effects. */
  private commandTable(): [
    RegExp,
    (
      match: RegExpExecArray,
      stdin: Buffer,
      record: ReceivedCommand,
    ) => Promise<CommandOutcome> | CommandOutcome,
  ][] {
    return [
      [/^sudo bash -s(?: |$)/, (_m, stdin, record) => this.runScript(record, stdin)],
      [
        /^sudo install -D -m \d+ \/dev\/stdin '?([^']+)'?$/,
        async (m, stdin) => {
          this.received.set(m[1]!, stdin);
          if (m[1] === '/opt/kubeconfig') await this.update((s) => (s.kubeconfig = true));
          return { exitCode: 0 };
        },
      ],
      [
        /^sudo install -d -m 0700 (\S+) && sudo tar -x --no-same-owner -C \1 -f -$/,
        (m, stdin) => this.untar(m[1]!, stdin),
      ],
      [/^sudo tar -C (\S+) -cf - \.$/, (m) => this.tarOut(m[1]!)],
      [
        /^cat \/proc\/sys\/kernel\/random\/boot_id$/,
        () => ({ exitCode: 0, stdout: `${this.bootId}\n` }),
      ],
      [/^sudo systemctl reboot$/, () => this.later(() => this.reboot())],
      [/^sudo systemctl poweroff$/, () => this.later(() => this.poweroff())],
      [
        /^sudo rm -rf (\S+)$/,
        (m) => {
          for (const file of [...this.received.keys()])
            if (file.startsWith(`${m[1]}/`)) this.received.delete(file);
          return { exitCode: 0 };
        },
      ],
    ];
  }

  /** Applies a change to the state and keeps it on the root disk. */
  async update(change: (state: BuildGuestState) => void): Promise<void> {
    change(this.state);
    if (this.options.rootDisk) await saveState(this.options.rootDisk, this.state);
  }

  /** install-to-disk: the installed system and disk.img (core's keys readable by a clone's boot). */
  async installToDisk(): Promise<void> {
    await this.update((s) => {
      s.installed = true;
      s.authorizedKeys = this.options.bootKeys;
      s.certsNotAfter = this.clockMs() + 24 * 3600_000;
    });
    await this.options.writeRootDisk?.(this.state.authorizedKeys);
  }

  /** A reboot inside the VMI: sshd goes away and comes back, with a new boot id. */
  async reboot(): Promise<void> {
    this.sshUp = false;
    await this.ssh.kill();
    this.bootId = randomUUID();
    this.bootedInstalled = this.state.installed;
    await this.update((s) => {
      if (s.rollout) {
        s.rollout = false;
        s.rendered += 1;
        // The daemon also writes the rendered pull secret to the kubelet's config.json.
        if (s.pullSecretApi === '{}') s.kubeletConfig = '{}';
      }
      s.journalBoots += 1;
    });
    this.startSsh();
  }

  async poweroff(): Promise<void> {
    this.poweredOff = true;
    await this.shutDown();
    this.options.onPoweroff?.();
  }

  async stop(): Promise<void> {
    await this.shutDown();
  }

  private async shutDown(): Promise<void> {
    this.sshUp = false;
    const closed = new Promise<void>((resolve) => this.port22.close(() => resolve()));
    await this.ssh.kill();
    await closed;
  }

  private startSsh(): void {
    const hostKey = this.installed ? this.state.hostKey : this.liveHostKey;
    const { port } = this.port22.address() as AddressInfo;
    this.ssh = GuestSshServer.forSockets(
      this,
      () => undefined,
      this.options.address,
      port,
      hostKey,
    );
    this.sshUp = true;
  }

  /** Answers first, then acts (systemd replies before the system goes down). */
  private later(action: () => Promise<void>): CommandOutcome {
    setTimeout(() => void action().catch(() => undefined), 50);
    return { exitCode: 0 };
  }

  private async runScript(record: ReceivedCommand, input: Buffer): Promise<CommandOutcome> {
    const text = input.toString('utf8');
    const name = scriptMarker(text) as GuestScript | undefined;
    const handler = name ? BUILD_SCRIPTS[name] : undefined;
    if (!name || !handler)
      return { exitCode: 127, stderr: 'bash: not a guest script this guest knows\n' };
    const script = guestScript(name);
    if (!text.startsWith(script))
      return { exitCode: 2, stderr: `${name}: the script differs from the repository's\n` };
    record.script = name;
    record.args = argsOf(record.command);
    record.stdinLines = text
      .slice(script.length)
      .split('\n')
      .filter((line) => line !== '');
    const outcome = await handler(this, record.args, record.stdinLines);
    record.answered = outcome.stdout?.toString() ?? '';
    return outcome;
  }

  private async untar(dir: string, archive: Buffer): Promise<CommandOutcome> {
    const extract = tar.extract();
    Readable.from([archive]).pipe(extract);
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      if (entry.header.type === 'file')
        this.received.set(path.posix.join(dir, entry.header.name), Buffer.concat(chunks));
    }
    return { exitCode: 0 };
  }

  private async tarOut(dir: string): Promise<CommandOutcome> {
    const pack = tar.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    const done = new Promise<void>((resolve) => pack.on('end', resolve));
    const prefix = `${dir}/`;
    const files = [...this.received].filter(([file]) => file.startsWith(prefix));
    if (files.length === 0)
      return { exitCode: 2, stderr: `tar: ${dir}: Cannot open: No such file or directory\n` };
    for (const [file, content] of files)
      pack.entry({ name: `./${file.slice(prefix.length)}`, mode: 0o600 }, content);
    pack.finalize();
    await done;
    return { exitCode: 0, stdout: Buffer.concat(chunks) };
  }
}

/** The arguments after `sudo bash -s --`, unquoted. */
function argsOf(command: string): string[] {
  const rest = command.replace(/^sudo bash -s(?: --)?/, '').trim();
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let match = pattern.exec(rest); match; match = pattern.exec(rest))
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  return words;
}
