import { access, readFile, rm } from 'node:fs/promises';
import { publicKeyLine } from '../../ssh-key.js';
import { clockProblem, SHIFTED_CLOCK_TOLERANCE_SECONDS } from '../clock-check.js';
import { ignitionCertificateNotBefore } from '../ignition-certificate.js';
import { readManifestFolders } from '../manifest-folders.js';
import { epochResult } from '../script-output.js';
import {
  cvoOverridesBlock,
  installConfig,
  liveAdditions,
  manifestFolder,
  networkManifest,
  sncMachineConfigs,
} from '../snc-inputs.js';
import type { StepRunner } from '../step-context.js';
import type { StepContext } from '../step-context.js';
import type { TarFile } from '../tar-streams.js';
import { GUEST_WORK_DIR, WORK_FILES, workPath } from '../work-files.js';

/** The first auth of a pull secret, compacted to one line (the guest script reads one line). */
export async function pullSecretLine(context: StepContext): Promise<string> {
  const file = context.config.paths.pullSecret;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw context.fail(
      'PullSecretInvalid',
      `the pull secret at ${file} is missing or not JSON; spec.build.pullSecretRef must name a Secret of type kubernetes.io/dockerconfigjson in the operator namespace`,
    );
  }
  return JSON.stringify(parsed);
}

async function installerInputs(context: StepContext): Promise<TarFile[]> {
  const { paths } = context.config;
  const key = await readFile(paths.sshKey, 'utf8');
  const binary = workPath(paths.work, WORK_FILES.openshiftInstall);
  await access(binary).catch(() => {
    throw context.fail(
      'InstallerMissing',
      `${binary} is missing: the resolve step extracts openshift-install onto the work volume first; run the build again from P0`,
    );
  });
  const manifests = (await readManifestFolders(paths.installManifests)).map((file) => ({
    name: `${manifestFolder(file.content)}/${file.name}`,
    content: file.content,
  }));
  return [
    { name: 'openshift-install', content: { path: binary }, mode: 0o755 },
    { name: 'install-config.yaml', content: installConfig('amd64', publicKeyLine(key)) },
    { name: 'cvo-overrides.yaml', content: cvoOverridesBlock() },
    { name: 'live-additions.json', content: liveAdditions() },
    networkManifest(),
    ...sncMachineConfigs(),
    ...manifests,
  ];
}

/**
 * P2 on the installer VM (docs/bundle-build.md#2-the-ignition-is-generated-in-the-past-p2): set and check the shifted clock, stream in the inputs,
 * generate the ignition with the pull secret on stdin, bring the install dir back to the work
 * volume, and check that the ignition's certificates were made on the shifted clock.
 */
export const runIgnition: StepRunner<'ignition'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const offset = config.clockOffsetSeconds;
  const target = Math.floor(context.now() / 1000) + offset;
  const clock = epochResult(
    await guest.script('installer-clock', { args: [String(target)] }),
    'installer-clock',
  );
  const problem = clockProblem(clock, context.now(), offset, 60);
  if (problem)
    throw context.fail(
      'ClockNotShifted',
      `the installer VM did not keep the clock it was set to: ${problem}; the image must let root set the time (timedatectl, date -s) and run no time sync the script cannot stop`,
    );
  log.info(
    { guestClock: new Date(clock * 1000).toISOString(), offsetSeconds: offset },
    'Installer VM clock set',
  );

  const inputs = `${GUEST_WORK_DIR.installer}/inputs`;
  await guest.sendFiles(inputs, await installerInputs(context));
  const generated = await guest.script('installer-ignition', {
    args: [GUEST_WORK_DIR.installer],
    input: [await pullSecretLine(context)],
  });
  log.info(
    { ignition: generated.results.get('ignition') },
    'Ignition generated on the installer VM',
  );

  const local = workPath(config.paths.work, WORK_FILES.installDir);
  await rm(local, { recursive: true, force: true });
  const files = await guest.receiveFolder(`${GUEST_WORK_DIR.installer}/install`, local);
  log.info({ files: files.length }, 'Install dir copied to the work volume');
  // The VM is deleted next; nothing of the pull secret should outlive this step there anyway.
  await guest.exec(`sudo rm -rf ${GUEST_WORK_DIR.installer}`).catch(() => undefined);

  const ignition = await readFile(
    workPath(config.paths.work, WORK_FILES.liveIgnition),
    'utf8',
  ).catch(() => {
    throw context.fail(
      'IgnitionMissing',
      `the installer left no ${WORK_FILES.liveIgnition}; see create-ignition.log on the installer VM`,
    );
  });
  const certificate = ignitionCertificateNotBefore(ignition);
  if (!certificate)
    throw context.fail(
      'IgnitionMissing',
      'the live ignition carries no certificate under /opt/openshift/tls to check its clock by',
    );
  const skew = clockProblem(
    Math.floor(certificate.notBefore.getTime() / 1000),
    context.now(),
    offset,
    SHIFTED_CLOCK_TOLERANCE_SECONDS,
  );
  if (skew)
    throw context.fail(
      'ClockNotShifted',
      `${certificate.file} in the live ignition was not made on the shifted clock: ${skew.replace('the guest clock reads', 'its NotBefore is')}`,
    );
  return { certificateNotBefore: certificate.notBefore.toISOString() };
};
