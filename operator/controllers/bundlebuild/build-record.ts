import type { CRCBundle } from '../../../client/api/resources.js';
import type { BuildStep, BuildStepOutputs } from '../../../contracts/bundle-build.js';

/** status.build: what the build recorded (attempt, objects, steps, inputs, stage). */
export type BuildRecord = NonNullable<NonNullable<CRCBundle['status']>['build']>;
export type ObjectRecord = NonNullable<BuildRecord['objects']>[number];
export type StepRecord = NonNullable<BuildRecord['steps']>[number];

/** What an object is to the build; one of each per attempt. */
export const ROLE = {
  inputs: 'InputsSnapshot',
  sshKey: 'SSHKey',
  work: 'WorkVolume',
  dnsConfig: 'DNSConfig',
  dnsDeployment: 'DNSDeployment',
  dnsService: 'DNSService',
  installerInit: 'InstallerCloudInit',
  installerVm: 'InstallerVM',
  installerVmi: 'InstallerVMI',
  liveIso: 'LiveISOVolume',
  rootDisk: 'RootDisk',
  targetVm: 'TargetVM',
  targetVmi: 'TargetVMI',
  golden: 'GoldenDisk',
  validation: 'ValidationInstance',
  guestPolicy: 'GuestNetworkPolicy',
} as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];

export function objectOf(build: BuildRecord | undefined, role: Role): ObjectRecord | undefined {
  return build?.objects?.find((o) => o.role === role);
}

/** The record with this object set (replacing the role's earlier entry). */
export function withObject(build: BuildRecord, object: ObjectRecord): BuildRecord {
  return {
    ...build,
    objects: [...(build.objects ?? []).filter((o) => o.role !== object.role), object],
  };
}

/**
 * A step's key in status.build.steps: the code of the stage that runs it and its name
 * (`<code>-<step>`; the stages ReturnToPresent and ZeroAndStop both run `poweroff`).
 */
export function stepKey(code: string, step: BuildStep): string {
  return `${code}-${step}`;
}

export function stepOf(build: BuildRecord | undefined, key: string): StepRecord | undefined {
  return build?.steps?.find((s) => s.name === key);
}

export function withStep(build: BuildRecord, step: StepRecord): BuildRecord {
  return { ...build, steps: [...(build.steps ?? []).filter((s) => s.name !== step.name), step] };
}

/** The steps one stage alone runs: their record is found by the step, whichever stage it was. */
export type OnceStep = Exclude<BuildStep, 'poweroff'>;

/** The record of a step the build runs once, by the step's name (the part of its key after the code). */
function onceStepOf(build: BuildRecord | undefined, step: OnceStep): StepRecord | undefined {
  return build?.steps?.find((s) => s.name.slice(s.name.indexOf('-') + 1) === step);
}

/**
 * An output a completed step left, as the string status keeps (resolve's ISO URL and release
 * version, publish's disk digest); empty when the step has not left it.
 */
export function outputOf<S extends OnceStep>(
  build: BuildRecord | undefined,
  step: S,
  name: keyof BuildStepOutputs[S] & string,
): string {
  return onceStepOf(build, step)?.outputs?.[name] ?? '';
}
