import type { CRCBundle } from '../../../api/resources.js';

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

/** A step's key in status: its phase and name (P7 and P11 both power the guest off). */
export function stepKey(phase: string, step: string): string {
  return `${phase}-${step}`;
}

export function stepOf(build: BuildRecord | undefined, key: string): StepRecord | undefined {
  return build?.steps?.find((s) => s.name === key);
}

export function withStep(build: BuildRecord, step: StepRecord): BuildRecord {
  return { ...build, steps: [...(build.steps ?? []).filter((s) => s.name !== step.name), step] };
}

/** An output a completed step left (P0's ISO URL, P13's disk digest). */
export function outputOf(build: BuildRecord | undefined, key: string, name: string): string {
  return stepOf(build, key)?.outputs?.[name] ?? '';
}
