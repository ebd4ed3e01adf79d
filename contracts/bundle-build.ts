/**
 * The bundle-build contract between the bundle build controller (operator/controllers/bundlebuild)
 * and crc-agent's `bundle-build` mode: the agent steps, the guest each talks to and the stage its
 * failures are named after, the step Jobs' environment and mounts, and the result a step leaves in
 * its termination message (which the controller records in the bundle's status). Which stage runs
 * which step, and in what order, is the operator's (docs/bundle-build.md#stage-map).
 *
 * Build Jobs get no API token: they only carry bytes and run the ssh client. The controller binds
 * each Job to the VMI it was made for (BUILD_ENV.vmiUid, and the Job's name) and ignores the
 * result of a Job whose VMI is gone or was replaced.
 */

/** The agent steps: `crc-agent bundle-build <step>`. */
export const BUILD_STEPS = [
  'resolve',
  'dns-check',
  'ignition',
  'iso',
  'install-wait',
  'day2',
  'poweroff',
  'present',
  'customize',
  'image-pin',
  'seal',
  'seal-check',
  'zero',
  'publish',
] as const;
export type BuildStep = (typeof BUILD_STEPS)[number];

/** Which guest a step talks to over SSH: none, the installer VM or the target VM (`crc`). */
export type StepGuest = 'none' | 'installer' | 'target';

/** The guest each step talks to. */
export const STEP_GUEST: Readonly<Record<BuildStep, StepGuest>> = {
  resolve: 'none',
  'dns-check': 'none',
  ignition: 'installer',
  iso: 'none',
  'install-wait': 'target',
  day2: 'target',
  poweroff: 'target',
  present: 'target',
  customize: 'target',
  'image-pin': 'target',
  seal: 'target',
  'seal-check': 'target',
  zero: 'target',
  publish: 'none',
};

/**
 * The stage a step runs in, by name (the first, for `poweroff`, which ReturnToPresent and
 * ZeroAndStop both run): the agent's own failure reasons start with it (`InstallWaitTimedOut`).
 * The operator's stage table (operator/controllers/bundlebuild/build-stages.ts) runs each step in
 * this stage; its test holds the two together.
 */
export const STEP_STAGE: Readonly<Record<BuildStep, string>> = {
  resolve: 'Resolve',
  'dns-check': 'DNS',
  ignition: 'Ignition',
  iso: 'ISO',
  'install-wait': 'InstallWait',
  day2: 'Day2',
  poweroff: 'ReturnToPresent',
  present: 'ReturnToPresent',
  customize: 'Customize',
  'image-pin': 'ImagePin',
  seal: 'Seal',
  'seal-check': 'Seal',
  zero: 'ZeroAndStop',
  publish: 'Publish',
};

/** The environment variables of a build Job. */
export const BUILD_ENV = {
  bundleName: 'BUILD_BUNDLE_NAME',
  bundleUid: 'BUILD_BUNDLE_UID',
  /** The build attempt (status.build.attempt); a Job of another attempt is never used. */
  attempt: 'BUILD_ATTEMPT',
  step: 'BUILD_STEP',
  releaseImage: 'BUILD_RELEASE_IMAGE',
  /** Enabled or Disabled (spec.build.certificateRotation). */
  certificateRotation: 'BUILD_CERTIFICATE_ROTATION',
  /** The guest clock's offset from real time in seconds (ignition: the installer VM's clock). */
  clockOffsetSeconds: 'BUILD_CLOCK_OFFSET_SECONDS',
  /** Address of the guest's sshd (a Service IP); empty for a step with no guest. */
  sshHost: 'BUILD_SSH_HOST',
  /** Not written by the operator (port 22); a local run sets it. */
  sshPort: 'BUILD_SSH_PORT',
  /** The VMI the step must talk to; the agent logs it with every result. */
  vmiUid: 'BUILD_VMI_UID',
  sshKeyPath: 'BUILD_SSH_KEY_PATH',
  pullSecretPath: 'BUILD_PULL_SECRET_PATH',
  /** The build DNS Service's ClusterIP (dns-check asks it; the target VM's resolver). */
  dnsIp: 'BUILD_DNS_IP',
  /** From P0's result, for the iso step. */
  isoUrl: 'BUILD_ISO_URL',
  isoSha256: 'BUILD_ISO_SHA256',
  workDir: 'BUILD_WORK_DIR',
  liveIsoDir: 'BUILD_LIVE_ISO_DIR',
  goldenDir: 'BUILD_GOLDEN_DIR',
  installManifestsDir: 'BUILD_INSTALL_MANIFESTS_DIR',
  postInstallManifestsDir: 'BUILD_POST_INSTALL_MANIFESTS_DIR',
  terminationMessagePath: 'TERMINATION_MESSAGE_PATH',
} as const;

/**
 * Mount paths. Manifest objects are mounted in spec order as `<dir>/<NN>-<name>/` (NN from 00),
 * one file per data key; the agent applies the folders in name order and the files in key order.
 */
export const BUILD_MOUNTS = {
  sshKey: { volume: 'build-ssh', dir: '/etc/bundle-build/ssh', file: 'id_ecdsa' },
  pullSecret: {
    volume: 'pull-secret',
    dir: '/etc/bundle-build/pull-secret',
    file: '.dockerconfigjson',
  },
  installManifests: { volume: 'install-manifests', dir: '/etc/bundle-build/manifests/install' },
  postInstallManifests: {
    volume: 'post-install-manifests',
    dir: '/etc/bundle-build/manifests/post-install',
  },
  /** The work PVC: binaries, the install dir, the ISO cache, logs. */
  work: { volume: 'work', dir: '/work' },
  /** The live-ISO PVC; the iso step writes `disk.img` at its root. */
  liveIso: { volume: 'live-iso', dir: '/live-iso' },
  /** The golden PVC (publish reads `disk.img`). */
  golden: { volume: 'golden', dir: '/golden' },
} as const;

export const BUILD_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** The file of a raw disk at a PVC's root, as KubeVirt and CDI lay it out. */
export const BUILD_DISK_FILE = 'disk.img';

/** What the operator tells one step's Job; a field not used by the step is empty. */
export interface BuildJobSpec {
  bundleName: string;
  bundleUid: string;
  attempt: string;
  step: BuildStep;
  releaseImage: string;
  certificateRotation: 'Enabled' | 'Disabled';
  clockOffsetSeconds: number;
  sshHost: string;
  vmiUid: string;
  dnsIp: string;
  isoUrl: string;
  isoSha256: string;
}

function toEnv(spec: BuildJobSpec): Record<string, string> {
  return {
    [BUILD_ENV.bundleName]: spec.bundleName,
    [BUILD_ENV.bundleUid]: spec.bundleUid,
    [BUILD_ENV.attempt]: spec.attempt,
    [BUILD_ENV.step]: spec.step,
    [BUILD_ENV.releaseImage]: spec.releaseImage,
    [BUILD_ENV.certificateRotation]: spec.certificateRotation,
    [BUILD_ENV.clockOffsetSeconds]: String(spec.clockOffsetSeconds),
    [BUILD_ENV.sshHost]: spec.sshHost,
    [BUILD_ENV.vmiUid]: spec.vmiUid,
    [BUILD_ENV.dnsIp]: spec.dnsIp,
    [BUILD_ENV.isoUrl]: spec.isoUrl,
    [BUILD_ENV.isoSha256]: spec.isoSha256,
    [BUILD_ENV.sshKeyPath]: `${BUILD_MOUNTS.sshKey.dir}/${BUILD_MOUNTS.sshKey.file}`,
    [BUILD_ENV.pullSecretPath]: `${BUILD_MOUNTS.pullSecret.dir}/${BUILD_MOUNTS.pullSecret.file}`,
    [BUILD_ENV.workDir]: BUILD_MOUNTS.work.dir,
    [BUILD_ENV.liveIsoDir]: BUILD_MOUNTS.liveIso.dir,
    [BUILD_ENV.goldenDir]: BUILD_MOUNTS.golden.dir,
    [BUILD_ENV.installManifestsDir]: BUILD_MOUNTS.installManifests.dir,
    [BUILD_ENV.postInstallManifestsDir]: BUILD_MOUNTS.postInstallManifests.dir,
    [BUILD_ENV.terminationMessagePath]: BUILD_TERMINATION_MESSAGE_PATH,
  };
}

/** The paths a Job's environment names (each defaults to its mount). */
export interface BuildJobPaths {
  sshKey: string;
  pullSecret: string;
  work: string;
  liveIso: string;
  golden: string;
  installManifests: string;
  postInstallManifests: string;
  terminationMessage: string;
}

/**
 * The spec and paths in an environment, values trimmed. Checks nothing but the step: the
 * agent's configuration loader says what is missing or malformed for its step.
 */
function fromEnv(env: Readonly<Record<string, string | undefined>>): {
  spec: Omit<BuildJobSpec, 'step' | 'certificateRotation' | 'clockOffsetSeconds'> & {
    step: BuildStep | undefined;
    certificateRotation: string;
    clockOffsetSeconds: number;
  };
  paths: BuildJobPaths;
  sshPort: number | undefined;
} {
  const value = (name: string): string => (env[name] ?? '').trim();
  const step = value(BUILD_ENV.step);
  const port = Number(value(BUILD_ENV.sshPort));
  return {
    spec: {
      bundleName: value(BUILD_ENV.bundleName),
      bundleUid: value(BUILD_ENV.bundleUid),
      attempt: value(BUILD_ENV.attempt),
      step: (BUILD_STEPS as readonly string[]).includes(step) ? (step as BuildStep) : undefined,
      releaseImage: value(BUILD_ENV.releaseImage),
      certificateRotation: value(BUILD_ENV.certificateRotation),
      clockOffsetSeconds: Number(value(BUILD_ENV.clockOffsetSeconds) || '0'),
      sshHost: value(BUILD_ENV.sshHost),
      vmiUid: value(BUILD_ENV.vmiUid),
      dnsIp: value(BUILD_ENV.dnsIp),
      isoUrl: value(BUILD_ENV.isoUrl),
      isoSha256: value(BUILD_ENV.isoSha256),
    },
    paths: {
      sshKey:
        value(BUILD_ENV.sshKeyPath) || `${BUILD_MOUNTS.sshKey.dir}/${BUILD_MOUNTS.sshKey.file}`,
      pullSecret:
        value(BUILD_ENV.pullSecretPath) ||
        `${BUILD_MOUNTS.pullSecret.dir}/${BUILD_MOUNTS.pullSecret.file}`,
      work: value(BUILD_ENV.workDir) || BUILD_MOUNTS.work.dir,
      liveIso: value(BUILD_ENV.liveIsoDir) || BUILD_MOUNTS.liveIso.dir,
      golden: value(BUILD_ENV.goldenDir) || BUILD_MOUNTS.golden.dir,
      installManifests: value(BUILD_ENV.installManifestsDir) || BUILD_MOUNTS.installManifests.dir,
      postInstallManifests:
        value(BUILD_ENV.postInstallManifestsDir) || BUILD_MOUNTS.postInstallManifests.dir,
      terminationMessage: value(BUILD_ENV.terminationMessagePath) || BUILD_TERMINATION_MESSAGE_PATH,
    },
    sshPort: Number.isInteger(port) && port > 0 ? port : undefined,
  };
}

export const BuildJobSpec = { toEnv, fromEnv };

/** What each step leaves as outputs on success (all strings or numbers, small). */
export interface BuildStepOutputs {
  resolve: {
    ocpVersion: string;
    /** sha256:<hex> of the release image. */
    releaseDigest: string;
    isoUrl: string;
    isoSha256: string;
  };
  'dns-check': { answered: string };
  /** NotBefore of a certificate in the live ignition (RFC 3339). */
  ignition: { certificateNotBefore: string };
  iso: { liveIsoSha256: string };
  'install-wait': { clusterVersion: string };
  day2: Record<string, never>;
  poweroff: Record<string, never>;
  /** The earliest NotAfter of the two kubelet certificates (RFC 3339). */
  present: { kubeletCertificatesNotAfter: string };
  customize: Record<string, never>;
  'image-pin': Record<string, never>;
  seal: Record<string, never>;
  /** How many checklist items (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10) were checked; all passed. */
  'seal-check': { checked: number };
  zero: Record<string, never>;
  publish: { diskSHA256: string; diskVirtualSizeBytes: number };
}

/** The JSON a build step writes as its termination message (at most 4 KiB). */
export type BuildStepResult<S extends BuildStep = BuildStep> =
  | { step: S; ok: true; outputs: BuildStepOutputs[S] }
  | {
      step: S;
      ok: false;
      /** CamelCase, e.g. InstallTimedOut or SealCheckFailed; the bundle's Ready reason. */
      reason: string;
      /** What failed and what a person can do about it; never a secret. */
      message: string;
    };

const REASON = /^[A-Z][A-Za-z0-9]*$/;

/**
 * A termination message as a step result, or undefined when it is not one of `step` (a crash's
 * log tail, a killed container): the caller then reports the text as it is.
 */
export function parseBuildStepResult<S extends BuildStep>(
  step: S,
  text: string | undefined,
): BuildStepResult<S> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const result = parsed as Record<string, unknown>;
  if (result.step !== step) return undefined;
  if (result.ok === true && typeof result.outputs === 'object' && result.outputs !== null)
    return { step, ok: true, outputs: result.outputs as BuildStepOutputs[S] };
  if (
    result.ok === false &&
    typeof result.reason === 'string' &&
    REASON.test(result.reason) &&
    typeof result.message === 'string'
  )
    return { step, ok: false, reason: result.reason, message: result.message };
  return undefined;
}

/** The label on build VMs and their `spec.template.metadata`: `target` or `installer`. */
export const LABEL_BUILD_ROLE = 'guestcluster.opdev.io/bundle-build-role';
export type BuildRole = 'target' | 'installer';

/** On a step's Job and pod: the step (the simulated platform reads it to play a step's result). */
export const LABEL_BUILD_STEP = 'guestcluster.opdev.io/bundle-build-step';

/** The container arguments of a step's Job (after the agent's entry point). */
export function buildStepArgs(step: BuildStep): string[] {
  return ['bundle-build', step];
}

/** The node address and host name the sealed bundle carries (docs/bundle-build.md#build-dns). */
export const BUILD_NODE = { internalIP: '192.168.126.11', hostname: 'crc' } as const;

/** SNC's clock shift: the install happens one day in the past when rotation is enabled. */
export const INSTALL_CLOCK_OFFSET_SECONDS = -86_400;
