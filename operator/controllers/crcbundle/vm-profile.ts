import type { CRCBundle } from '../../api/resources.js';

/**
 * A versioned KubeVirt VM profile (spec.build.profile): the firmware, network and clock settings
 * of the build's target VM and of every VM that boots the bundle. A profile never changes once
 * released; a new one gets a new name.
 */
export interface VmProfile {
  name: string;
  /** `bios` is KubeVirt's default (no spec.domain.firmware); the RHCOS image is hybrid. */
  firmware: 'BIOS';
  /** Masquerade on the pod network: the guest NIC is 10.0.2.2 in every VMI (spec §5.3). */
  interface: { name: string; masquerade: Record<string, never> };
  network: { name: string; pod: Record<string, never> };
  /** The guest clock's timezone base; the build shifts it by an offset in P4–P7 only. */
  clock: 'utc';
}

export const CRC_KUBEVIRT_V1: VmProfile = {
  name: 'crc-kubevirt-v1',
  firmware: 'BIOS',
  interface: { name: 'default', masquerade: {} },
  network: { name: 'default', pod: {} },
  clock: 'utc',
};

export const VM_PROFILES: Readonly<Record<string, VmProfile>> = {
  [CRC_KUBEVIRT_V1.name]: CRC_KUBEVIRT_V1,
};

/** The profile a bundle names (its default when unset); undefined for an unknown name. */
export function profileOf(bundle: CRCBundle): VmProfile | undefined {
  return VM_PROFILES[bundle.spec.build?.profile ?? CRC_KUBEVIRT_V1.name];
}

/** The domain and network parts of a VMI spec that the profile fixes. */
export function profileDomain(
  profile: VmProfile,
  clockOffsetSeconds: number,
): {
  clock: { utc: { offsetSeconds?: number } };
  devices: { interfaces: VmProfile['interface'][] };
} {
  return {
    clock: { utc: clockOffsetSeconds ? { offsetSeconds: clockOffsetSeconds } : {} },
    devices: { interfaces: [{ ...profile.interface }] },
  };
}
