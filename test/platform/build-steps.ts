import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import ssh2 from 'ssh2';
import { BUILD_ENV, LABEL_BUILD_ROLE } from '../../contracts/bundle-build.js';
import type { BuildRole, BuildStep, BuildStepResult } from '../../contracts/bundle-build.js';
import { parseBuildStepResult } from '../../contracts/bundle-build.js';
import { runBundleBuild } from '../../crc-agent/bundle-build/run-bundle-build.js';
import { CRC_KUBEVIRT_V1, profileVmiSpec } from '../../operator/api/vm-profile.js';
import { createLogger } from '../../crc-agent/logger.js';
import type { VmiObject } from '../../dev/platform/host/platform-kinds.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { SimulatedBuildGuests } from '../../dev/platform/build/simulated-build-guests.js';
import { playResolve } from '../../dev/platform/build/simulated-build-tools.js';
import type { BuildGuestFaults } from '../../dev/guest/simulated-build-guest.js';
import { freshState, saveState } from '../../dev/guest/build-guest-state.js';
import type { BuildGuestState } from '../../dev/guest/build-guest-state.js';

export const BUILD_PULL_SECRET_TOKEN = 'YnVpbGQtdXNlcjpidWlsZC1wdWxsLXRva2VuLTRmOGE5';
export const BUILD_PULL_SECRET = JSON.stringify({
  auths: { 'quay.io': { auth: BUILD_PULL_SECRET_TOKEN, email: 'build@example.test' } },
});

/** Short waits: the simulated guest answers at once, and the failure cases must end soon. */
const FAST = {
  CRC_AGENT_RETRY_INTERVAL: '20ms',
  CRC_AGENT_SSH_WAIT_TIMEOUT: '10s',
  CRC_AGENT_CLUSTER_POLL_TIMEOUT: '10s',
  BUILD_INSTALL_TIMEOUT: '20s',
};

let uids = 0;

/**
 * One build's surroundings without the operator: the work, live-ISO, golden and manifest
 * folders, the build key and pull secret as the Job mounts them, the simulated build guests, and
 * VMIs as the operator would create them. Steps run in-process (runBundleBuild) with the Job's
 * environment; their log and termination message are kept.
 */
export class BuildBench {
  readonly guests: SimulatedBuildGuests;
  /** Every line the steps logged. */
  readonly log: string[] = [];
  readonly poweredOff: string[] = [];
  readonly faults = new Map<string, BuildGuestFaults>();
  private readonly volumes = new Map<string, string>();

  private constructor(
    readonly dir: string,
    readonly key: { private: string; public: string },
  ) {
    this.guests = new SimulatedBuildGuests({
      volumePath: (_namespace, claim) => this.volumes.get(claim),
      onPoweroff: (vmi) => this.poweredOff.push(vmi.metadata!.uid!),
      faults: (vmi) => this.faults.get(vmi.metadata!.name!),
    });
  }

  static async create(): Promise<BuildBench> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'build-bench-'));
    const key = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
    const bench = new BuildBench(dir, key);
    for (const folder of [
      'work',
      'live-iso',
      'golden',
      'manifests/install',
      'manifests/post-install',
      'secrets',
    ])
      await mkdir(path.join(dir, folder), { recursive: true });
    for (const claim of ['live-iso', 'golden']) bench.volumes.set(claim, path.join(dir, claim));
    await writeFile(path.join(dir, 'secrets/id_ecdsa'), key.private, { mode: 0o600 });
    await writeFile(path.join(dir, 'secrets/.dockerconfigjson'), BUILD_PULL_SECRET, {
      mode: 0o600,
    });
    await playResolve(path.join(dir, 'work'));
    return bench;
  }

  path(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** A root disk already installed (and changed as `state` says), as a step left it. */
  async installedDisk(disk: string, state: Partial<BuildGuestState> = {}): Promise<void> {
    await mkdir(this.path('disks', disk), { recursive: true });
    await saveState(this.path('disks', disk), {
      ...freshState(this.key.private),
      installed: true,
      authorizedKeys: this.key.public,
      ...state,
    });
  }

  /** A VMI as the operator creates it for a build VM, booted by the simulated guests. */
  async bootVmi(
    role: BuildRole,
    options: { name?: string; offsetSeconds?: number; cdrom?: boolean; disk?: string } = {},
  ): Promise<VmiObject> {
    const name = options.name ?? (role === 'installer' ? 'installer-vm' : 'crc');
    const disk = options.disk ?? 'rootdisk';
    await mkdir(this.path('disks', disk), { recursive: true });
    this.volumes.set(disk, this.path('disks', disk));
    const volumes: unknown[] =
      role === 'installer'
        ? [
            {
              name: 'cloudinit',
              cloudInitNoCloud: {
                userData: `#cloud-config\nssh_authorized_keys:\n  - ${this.key.public}\n`,
              },
            },
          ]
        : [
            { name: 'rootdisk', dataVolume: { name: disk } },
            ...(options.cdrom === false
              ? []
              : [{ name: 'cdrom', persistentVolumeClaim: { claimName: 'live-iso' } }]),
          ];
    const disks =
      role === 'installer'
        ? []
        : [
            { name: 'rootdisk', disk: { bus: 'virtio' } },
            ...(options.cdrom === false ? [] : [{ name: 'cdrom', cdrom: { bus: 'sata' } }]),
          ];
    const profile = profileVmiSpec(CRC_KUBEVIRT_V1, options.offsetSeconds);
    const vmi = {
      metadata: {
        name,
        namespace: 'build',
        uid: `vmi-${++uids}-${name}`,
        labels: { [LABEL_BUILD_ROLE]: role },
      },
      // On the bundle's VM profile, as the operator's build VMs are.
      spec: {
        domain: { ...profile.domain, devices: { ...profile.domain.devices, disks } },
        networks: profile.networks,
        volumes,
      },
    } as unknown as VmiObject;
    await this.guests.boot(vmi, undefined);
    return vmi;
  }

  /** A step Job's environment for the guest of `vmi` (none for a local step). */
  env(
    step: BuildStep,
    vmi: VmiObject | undefined,
    resultFile: string,
    extra: Record<string, string> = {},
  ): Record<string, string> {
    const guest = vmi ? this.guests.guestOf(vmi.metadata!.uid!) : undefined;
    return {
      [BUILD_ENV.bundleName]: 'crc-4-22-custom-a',
      [BUILD_ENV.bundleUid]: 'bundle-uid-1',
      [BUILD_ENV.attempt]: 'attempt-1',
      [BUILD_ENV.step]: step,
      [BUILD_ENV.releaseImage]: `quay.io/example/ocp-release@sha256:${'a'.repeat(64)}`,
      [BUILD_ENV.certificateRotation]: 'Enabled',
      [BUILD_ENV.clockOffsetSeconds]: '0',
      [BUILD_ENV.sshHost]:
        guest?.options.address ?? (vmi ? this.guests.address(vmi.metadata!.uid!) : ''),
      [BUILD_ENV.sshPort]: guest ? String(guest.ssh.port) : '',
      [BUILD_ENV.vmiUid]: vmi?.metadata?.uid ?? '',
      [BUILD_ENV.dnsIp]: '172.30.0.53',
      [BUILD_ENV.sshKeyPath]: this.path('secrets/id_ecdsa'),
      [BUILD_ENV.pullSecretPath]: this.path('secrets/.dockerconfigjson'),
      [BUILD_ENV.workDir]: this.path('work'),
      [BUILD_ENV.liveIsoDir]: this.path('live-iso'),
      [BUILD_ENV.goldenDir]: this.path('golden'),
      [BUILD_ENV.installManifestsDir]: this.path('manifests/install'),
      [BUILD_ENV.postInstallManifestsDir]: this.path('manifests/post-install'),
      [BUILD_ENV.terminationMessagePath]: resultFile,
      ...FAST,
      ...extra,
    };
  }

  /** Runs a step as the simulated Job runner does: the built agent, a process of its own. */
  async process(
    step: BuildStep,
    vmi: VmiObject | undefined,
  ): Promise<{ exitCode: number | null; result: unknown }> {
    const resultFile = this.path(`result-${step}-process.json`);
    const child = spawn(
      process.execPath,
      [path.join(projectRoot(), 'dist/crc-agent/main.js'), 'bundle-build', step],
      {
        env: { PATH: process.env.PATH ?? '', ...this.env(step, vmi, resultFile) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (chunk: Buffer) => this.log.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => this.log.push(chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { exitCode, result: JSON.parse(await readFile(resultFile, 'utf8')) as unknown };
  }

  /** Runs one step as its Job would, against the guest of `vmi` (none for a local step). */
  async step<S extends BuildStep>(
    step: S,
    vmi: VmiObject | undefined,
    env: Record<string, string> = {},
  ): Promise<BuildStepResult<S>> {
    const resultFile = this.path(`result-${step}-${Date.now()}.json`);
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) =>
      this.log.push(...chunk.toString('utf8').split('\n').filter(Boolean)),
    );
    const exitCode = await runBundleBuild(step, {
      log: createLogger(sink),
      signal: AbortSignal.timeout(60_000),
      env: this.env(step, vmi, resultFile, env),
    });
    const text = await readFile(resultFile, 'utf8');
    const result = parseBuildStepResult(step, text);
    if (!result) throw new Error(`step ${step} left no result: ${text}`);
    if ((exitCode === 0) !== result.ok)
      throw new Error(`step ${step} exited ${exitCode} with result ${text}`);
    return result;
  }

  async stop(): Promise<void> {
    await this.guests.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The outputs of a result that must have succeeded (the failure's message otherwise). */
export function outputsOf<S extends BuildStep>(
  result: BuildStepResult<S>,
): Extract<BuildStepResult<S>, { ok: true }>['outputs'] {
  if (!result.ok)
    throw new Error(`step ${result.step} failed: ${result.reason}: ${result.message}`);
  return result.outputs;
}
