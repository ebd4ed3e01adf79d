import type { CRCBundle } from '../../client/api/resources.js';

/**
 * A versioned KubeVirt VM profile (`spec.build.profile`, recorded in `status.build.profile` and in
 * each consumer's `status.crc.bootKey.vmProfile`): the firmware, network and clock settings of the
 * build's target VM and of every VM that boots the bundle. A built disk only boots on the machine
 * it was installed on: its bootloader is laid out for that firmware, and the node was installed
 * behind that NIC. A profile never changes once released; a new one gets a new name.
 */
export interface VmProfile {
  readonly name: string;
  /** How status.build.vmProfile names the firmware. */
  readonly firmware: 'BIOS';
  /**
   * KubeVirt's `spec.domain.firmware.bootloader`, always set: BIOS is KubeVirt's amd64 default,
   * but a profile does not leave it to a default (the RHCOS metal image boots either).
   */
  readonly bootloader: { readonly bios: Record<string, never> };
  /** Masquerade on the pod network: the guest NIC is 10.0.2.2 in every VMI (docs/bundle-build.md#build-dns). */
  readonly interface: { readonly name: string; readonly masquerade: Record<string, never> };
  readonly network: { readonly name: string; readonly pod: Record<string, never> };
  /** The guest clock's base; the build shifts it by an offset from P4 Boot to P7 ReturnToPresent only. */
  readonly clock: 'utc';
}

export const CRC_KUBEVIRT_V1: VmProfile = {
  name: 'crc-kubevirt-v1',
  firmware: 'BIOS',
  bootloader: { bios: {} },
  interface: { name: 'default', masquerade: {} },
  network: { name: 'default', pod: {} },
  clock: 'utc',
};

/** The profiles this operator knows, by name (the CRD's enum of spec.build.profile). */
export const VM_PROFILES: Readonly<Record<string, VmProfile>> = {
  [CRC_KUBEVIRT_V1.name]: CRC_KUBEVIRT_V1,
};

/** The profile of that name; undefined for a name this operator does not know. */
export function vmProfileNamed(name: string): VmProfile | undefined {
  return Object.hasOwn(VM_PROFILES, name) ? VM_PROFILES[name] : undefined;
}

/** The profile a bundle's build names (its default when unset); undefined for an unknown name. */
export function profileOf(bundle: Pick<CRCBundle, 'spec'>): VmProfile | undefined {
  return vmProfileNamed(bundle.spec.build?.profile ?? CRC_KUBEVIRT_V1.name);
}

/** The parts of a VMI spec (VirtualMachineInstanceSpec) that a profile fixes. */
export interface ProfileVmiSpec {
  domain: {
    firmware: { bootloader: VmProfile['bootloader'] };
    clock: { utc: { offsetSeconds?: number } };
    devices: { interfaces: VmProfile['interface'][] };
  };
  networks: VmProfile['network'][];
}

/**
 * The VMI spec parts of a profile, fresh objects on every call: what the build's target VM and
 * every consumer VM merge into their template, so that the two cannot drift. The build alone
 * passes a clock offset (P4 Boot to P7 ReturnToPresent); every other VM runs on real UTC.
 */
export function profileVmiSpec(profile: VmProfile, clockOffsetSeconds = 0): ProfileVmiSpec {
  return {
    domain: {
      firmware: { bootloader: structuredClone(profile.bootloader) },
      clock: { utc: clockOffsetSeconds ? { offsetSeconds: clockOffsetSeconds } : {} },
      devices: { interfaces: [structuredClone(profile.interface)] },
    },
    networks: [structuredClone(profile.network)],
  };
}
