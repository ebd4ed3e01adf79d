import { PVCS, SERVICES } from '../../../api/core-resources.js';
import { SECRETS } from '../../../api/resources.js';
import { DATA_VOLUMES, DEPLOYMENTS, VIRTUAL_MACHINES } from '../../../api/platform-resources.js';
import { CONFIG_MAPS } from '../../../api/core-resources.js';
import type { Secret } from '../../../kube/workloads.js';
import type { PlatformObject } from '../../clusterinstance/core/platform-object.js';
import type { BuildJobSpec, BuildStageName } from '../../../../contracts/bundle-build.js';
import { INSTALL_CLOCK_OFFSET_SECONDS } from '../../../../contracts/bundle-build.js';
import { profileOf } from '../../../api/vm-profile.js';
import { buildDnsConfigMap, buildDnsDeployment, buildDnsService } from './build-dns.js';
import { readBuildInputs } from './build-inputs.js';
import { buildMeta } from './build-meta.js';
import { buildSshKeySecret, SSH_KEY_FILES } from './build-keys.js';
import type { BuildPass, StageResult } from './build-pass.js';
import { BuildFailure } from './build-pass.js';
import { outputOf, ROLE, stepKey } from './build-record.js';
import { returnToPresent, zeroAndStop } from './build-power.js';
import { capture } from './build-capture.js';
import { publish } from './build-publish.js';
import { validate } from './build-validation.js';
import { runningVmi, vmiAddress, vmiClockOffset, vmiOf } from './build-vmis.js';
import {
  BUILD_RUN_STRATEGY,
  buildInstallerCloudInit,
  buildInstallerVm,
  buildLiveIsoPvc,
  buildRootDisk,
  buildTargetVm,
  buildWorkPvc,
} from './build-vms.js';

type StepSpec = Omit<BuildJobSpec, 'bundleName' | 'bundleUid' | 'attempt' | 'releaseImage'>;

/** A step's Job spec with no guest (the fields it does not use empty). */
export function stepSpec(
  pass: BuildPass,
  spec: Partial<StepSpec> & Pick<StepSpec, 'step'>,
): StepSpec {
  return {
    certificateRotation: pass.bundle.spec.build?.certificateRotation ?? 'Enabled',
    clockOffsetSeconds: 0,
    sshHost: '',
    vmiUid: '',
    dnsIp: '',
    isoUrl: '',
    isoSha256: '',
    ...spec,
  };
}

export const rotates = (pass: BuildPass): boolean =>
  (pass.bundle.spec.build?.certificateRotation ?? 'Enabled') === 'Enabled';

/** The target guest for a step of the target VM: its running VMI, recorded. */
export async function onTarget(
  pass: BuildPass,
  phase: string,
  stage: BuildStageName,
  steps: StepSpec['step'][],
): Promise<StageResult> {
  for (const step of steps) {
    const recorded = pass.build.steps?.find((s) => s.name === stepKey(phase, step));
    if (recorded?.completedAt) continue;
    // A step already started is bound to its VMI: a poweroff ends it, and that is its success.
    let bound: { sshHost: string; vmiUid: string; clockOffsetSeconds: number } | undefined;
    if (recorded?.vmiUID) {
      const vmi = await vmiOf(pass, pass.names.targetVm);
      const same = vmi?.metadata.uid === recorded.vmiUID;
      // Any other step's VMI gone or replaced: what the step did there is lost with it, and its
      // Job's result (from a guest that is no longer the target) cannot be taken as done.
      if (!same && step !== 'poweroff') throw replacedUnder(pass, step, recorded.vmiUID, vmi);
      bound = {
        sshHost: same ? vmiAddress(vmi) : '',
        vmiUid: recorded.vmiUID,
        clockOffsetSeconds: same ? vmiClockOffset(vmi) : 0,
      };
    } else {
      const target = await runningVmi(pass, ROLE.targetVmi, pass.names.targetVm);
      if (!('vmi' in target)) return target;
      // The guest's clock is the VMI's offset from real time: the agent checks it holds.
      bound = {
        sshHost: target.address,
        vmiUid: target.vmi.metadata.uid,
        clockOffsetSeconds: vmiClockOffset(target.vmi),
      };
    }
    // The guest's resolver is the build DNS: the checklist and the guest scripts compare with it.
    const dns = await dnsIp(pass);
    const result = await pass.step(phase, stage, stepSpec(pass, { step, ...bound, dnsIp: dns }));
    if (!('done' in result)) return result;
  }
  return { done: true };
}

function replacedUnder(
  pass: BuildPass,
  step: string,
  bound: string,
  vmi: { metadata: { uid: string } } | undefined,
): BuildFailure {
  const target = `VMI ${pass.namespace}/${pass.names.targetVm}`;
  return new BuildFailure(
    'BuildVMIReplaced',
    vmi
      ? `${target} was replaced while a step ran (UID ${vmi.metadata.uid}, the ${step} step ran in ${bound}): the guest restarted outside the build, which cannot go on`
      : `${target} is gone (the ${step} step ran in ${bound}): the guest stopped outside the build, which cannot go on`,
  );
}

const held = (value: unknown): value is StageResult =>
  !!value && typeof value === 'object' && ('record' in value || 'wait' in value);

/** P0: the inputs' snapshot (checked against the digests recorded at the start), the key, work. */
async function resolve(pass: BuildPass): Promise<StageResult> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const inputs = await pass.ensure<Secret>(ROLE.inputs, SECRETS, names.inputs, async () => {
    const read = await readBuildInputs(pass.ports.client, bundle, ns);
    const changed = read.records.find(
      (r, i) =>
        r.sha256 !== pass.build.inputs?.[i]?.sha256 || r.name !== pass.build.inputs?.[i]?.name,
    );
    if (changed)
      throw new BuildFailure(
        'InputChanged',
        `${changed.kind} ${ns}/${changed.name} changed after the build started: a build uses the inputs it recorded; create a new CRCBundle to build with the new content`,
      );
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: buildMeta(bundle, attempt, ns, names.inputs),
      type: 'Opaque',
      data: read.snapshot,
    } satisfies Secret;
  });
  if (held(inputs)) return inputs;
  const key = await pass.ensure(ROLE.sshKey, SECRETS, names.sshKey, () =>
    buildSshKeySecret(bundle, attempt, ns, names),
  );
  if (held(key)) return key;
  const work = await pass.ensure(ROLE.work, PVCS, names.work, () =>
    buildWorkPvc(bundle, attempt, ns, names),
  );
  if (held(work)) return work;
  return pass.step('P0', 'Resolve', stepSpec(pass, { step: 'resolve' }));
}

/** The build DNS Service's ClusterIP (spec §5.3), once the Service has one. */
export async function dnsIp(pass: BuildPass): Promise<string> {
  const service = await pass.current<PlatformObject>(SERVICES, pass.names.dns);
  return (service?.spec?.clusterIP as string | undefined) ?? '';
}

/** P1: the DNS objects, and a check that the server answers. */
async function dns(pass: BuildPass): Promise<StageResult> {
  const { names, namespace: ns, bundle, attempt } = pass;
  for (const [role, type, make] of [
    [ROLE.dnsConfig, CONFIG_MAPS, () => buildDnsConfigMap(bundle, attempt, ns, names)],
    [ROLE.dnsDeployment, DEPLOYMENTS, () => buildDnsDeployment(bundle, attempt, ns, names)],
    [ROLE.dnsService, SERVICES, () => buildDnsService(bundle, attempt, ns, names)],
  ] as const) {
    const object = await pass.ensure(role, type, names.dns, make);
    if (held(object)) return object;
  }
  const ip = await dnsIp(pass);
  if (!ip) return { wait: `waiting for Service ${ns}/${names.dns} to get a ClusterIP` };
  return pass.step('P1', 'DNS', stepSpec(pass, { step: 'dns-check', dnsIp: ip }));
}

/** P2: the ignition, generated one day in the past in the installer VM (or a Job without rotation). */
async function ignition(pass: BuildPass): Promise<StageResult> {
  if (!rotates(pass)) return pass.step('P2', 'Ignition', stepSpec(pass, { step: 'ignition' }));
  const { names, namespace: ns, bundle, attempt } = pass;
  if (stepDone(pass, 'P2', 'ignition')) return { done: true };
  const keySecret = await pass.current<Secret>(SECRETS, names.sshKey);
  const publicKey = Buffer.from(
    keySecret?.data?.[SSH_KEY_FILES.publicKey] ?? '',
    'base64',
  ).toString();
  const init = await pass.ensure(ROLE.installerInit, SECRETS, names.installerCloudInit, () =>
    buildInstallerCloudInit(bundle, attempt, ns, names, publicKey),
  );
  if (held(init)) return init;
  const profile = profileOf(bundle)!;
  const vm = await pass.ensure(ROLE.installerVm, VIRTUAL_MACHINES, names.installerVm, () =>
    buildInstallerVm(bundle, attempt, ns, names, profile),
  );
  if (held(vm)) return vm;
  const installer = await runningVmi(pass, ROLE.installerVmi, names.installerVm);
  if (!('vmi' in installer)) return installer;
  return pass.step(
    'P2',
    'Ignition',
    stepSpec(pass, {
      step: 'ignition',
      sshHost: installer.address,
      vmiUid: installer.vmi.metadata.uid,
      clockOffsetSeconds: INSTALL_CLOCK_OFFSET_SECONDS,
    }),
  );
}

export function stepDone(pass: BuildPass, phase: string, step: string): boolean {
  return !!pass.build.steps?.find((s) => s.name === stepKey(phase, step))?.completedAt;
}

/** P3: the live ISO with the ignition embedded, written into its PVC. */
async function iso(pass: BuildPass): Promise<StageResult> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const claim = await pass.ensure(ROLE.liveIso, PVCS, names.liveIso, () =>
    buildLiveIsoPvc(bundle, attempt, ns, names),
  );
  if (held(claim)) return claim;
  const p0 = stepKey('P0', 'resolve');
  return pass.step(
    'P3',
    'ISO',
    stepSpec(pass, {
      step: 'iso',
      isoUrl: outputOf(pass.build, p0, 'isoUrl'),
      isoSha256: outputOf(pass.build, p0, 'isoSha256'),
    }),
  );
}

/** P4: the blank root disk and the target VM, booted from the cdrom with the clock shifted. */
async function boot(pass: BuildPass): Promise<StageResult> {
  const { names, namespace: ns, bundle, attempt } = pass;
  const disk = await pass.ensure(ROLE.rootDisk, DATA_VOLUMES, names.rootDisk, () =>
    buildRootDisk(bundle, attempt, ns, names),
  );
  if (held(disk)) return disk;
  const ip = await dnsIp(pass);
  if (!ip) throw new BuildFailure('BuildObjectLost', `Service ${ns}/${names.dns} has no ClusterIP`);
  const vm = await pass.ensure(ROLE.targetVm, VIRTUAL_MACHINES, names.targetVm, () =>
    buildTargetVm(bundle, attempt, ns, names, {
      profile: profileOf(bundle)!,
      dnsIp: ip,
      clockOffsetSeconds: rotates(pass) ? INSTALL_CLOCK_OFFSET_SECONDS : 0,
      cdrom: true,
      runStrategy: BUILD_RUN_STRATEGY,
    }),
  );
  if (held(vm)) return vm;
  const target = await runningVmi(pass, ROLE.targetVmi, names.targetVm);
  return 'vmi' in target ? { done: true } : target;
}

/** Each stage's work, by stage name (contracts/bundle-build.ts BUILD_STAGES). */
export const STAGE_WORK: Record<BuildStageName, (pass: BuildPass) => Promise<StageResult>> = {
  Resolve: resolve,
  DNS: dns,
  Ignition: ignition,
  ISO: iso,
  Boot: boot,
  InstallWait: (pass) => onTarget(pass, 'P5', 'InstallWait', ['install-wait']),
  Day2: (pass) => onTarget(pass, 'P6', 'Day2', ['day2']),
  ReturnToPresent: returnToPresent,
  Customize: (pass) => onTarget(pass, 'P8', 'Customize', ['customize']),
  ImagePin: (pass) => onTarget(pass, 'P9', 'ImagePin', ['image-pin']),
  Seal: (pass) => onTarget(pass, 'P10', 'Seal', ['seal', 'seal-check']),
  ZeroAndStop: zeroAndStop,
  Capture: capture,
  Publish: publish,
  Validate: validate,
};
