import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  CRC_KUBEVIRT_V1,
  profileOf,
  profileVmiSpec,
  VM_PROFILES,
  vmProfileNamed,
} from './vm-profile.js';

describe('VM profiles', () => {
  it('turns crc-kubevirt-v1 into explicit BIOS firmware, masquerade on the pod network and UTC', () => {
    expect(profileVmiSpec(CRC_KUBEVIRT_V1)).toEqual({
      domain: {
        firmware: { bootloader: { bios: {} } },
        clock: { utc: {} },
        devices: { interfaces: [{ name: 'default', masquerade: {} }] },
      },
      networks: [{ name: 'default', pod: {} }],
    });
  });

  it('adds the build clock offset only when there is one', () => {
    expect(profileVmiSpec(CRC_KUBEVIRT_V1, -86_400).domain.clock).toEqual({
      utc: { offsetSeconds: -86_400 },
    });
    expect(profileVmiSpec(CRC_KUBEVIRT_V1, 0).domain.clock).toEqual({ utc: {} });
  });

  it('hands out fresh objects, so a builder that edits its copy cannot change the profile', () => {
    const first = profileVmiSpec(CRC_KUBEVIRT_V1);
    (first.domain.devices.interfaces[0] as Record<string, unknown>).bridge = {};
    (first.networks[0] as Record<string, unknown>).multus = { networkName: 'x' };
    expect(profileVmiSpec(CRC_KUBEVIRT_V1)).toEqual(profileVmiSpec(CRC_KUBEVIRT_V1, 0));
    expect(CRC_KUBEVIRT_V1.interface).toEqual({ name: 'default', masquerade: {} });
  });

  it('knows a profile by name only, and a bundle without one gets the first', () => {
    expect(vmProfileNamed('crc-kubevirt-v1')).toBe(CRC_KUBEVIRT_V1);
    expect(vmProfileNamed('crc-kubevirt-v9')).toBeUndefined();
    expect(vmProfileNamed('toString')).toBeUndefined();
    expect(
      profileOf({ spec: { arch: 'amd64', build: { releaseImage: 'r@sha256:0' } } } as never),
    ).toBe(CRC_KUBEVIRT_V1);
  });

  it('lists exactly the profiles the CRCBundle CRD accepts in spec.build.profile', () => {
    const crd = parse(readFileSync('crds/crcbundles.yaml', 'utf8')) as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, never> } }[] };
    };
    type Node = { properties?: Record<string, Node>; enum?: string[] };
    const root = crd.spec.versions[0]!.schema.openAPIV3Schema as Node;
    const profile = root.properties!.spec!.properties!.build!.properties!.profile!;
    expect(profile.enum).toEqual(Object.keys(VM_PROFILES));
  });
});
