import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import {
  cvoOverridesBlock,
  installConfig,
  liveAdditions,
  manifestFolder,
  sncMachineConfigs,
} from './snc-inputs.js';

describe('the installer inputs', () => {
  it('make an install-config without a pull secret, with a top-level key last for the guest to append to', () => {
    const text = installConfig('amd64', 'ecdsa-sha2-nistp521 AAAA core\n');
    const config = parse(text) as Record<string, unknown>;
    expect(config).toMatchObject({
      baseDomain: 'testing',
      metadata: { name: 'crc' },
      networking: {
        machineNetwork: [{ cidr: '192.168.126.0/24' }],
        serviceNetwork: ['10.217.4.0/23'],
      },
      bootstrapInPlace: { installationDisk: '/dev/vda' },
      sshKey: 'ecdsa-sha2-nistp521 AAAA core',
    });
    expect(config.pullSecret).toBeUndefined();
    const appended = parse(`${text}pullSecret: '{"auths":{}}'\n`) as Record<string, unknown>;
    expect(appended.pullSecret).toBe('{"auths":{}}');
  });

  it('append the CVO overrides under spec: of the generated manifest', () => {
    const generated =
      'apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  name: version\nspec:\n  channel: stable-4.22\n';
    const merged = parse(generated + cvoOverridesBlock()) as {
      spec: { channel: string; overrides: { name: string; unmanaged: boolean }[] };
    };
    expect(merged.spec.channel).toBe('stable-4.22');
    expect(merged.spec.overrides.map((o) => o.name)).toEqual([
      'cluster-monitoring-operator',
      'monitoring',
      'cloud-credential-operator',
      'cloud-credential',
      'cluster-autoscaler-operator',
      'cluster-autoscaler',
      'cluster-cloud-controller-manager-operator',
      'cloud-controller-manager',
    ]);
  });

  it('carry the node-IP hint and the dummy eth10 in both the MachineConfigs and the live ignition', () => {
    const configs = sncMachineConfigs().map((file) => file.content as string);
    expect(configs.some((c) => c.includes('name: chronyd-mask'))).toBe(true);
    expect(configs.every((c) => manifestFolder(c) === 'openshift')).toBe(true);
    const live = JSON.parse(liveAdditions()) as {
      systemd: { units: { name: string; mask?: boolean }[] };
      storage: { files: { path: string }[] };
    };
    expect(live.systemd.units).toContainEqual({ name: 'chronyd.service', mask: true });
    expect(live.systemd.units.map((u) => u.name)).toContain('guestcluster-dummy-eth10.service');
    expect(live.storage.files.map((f) => f.path)).toEqual(['/etc/default/nodeip-configuration']);
    expect(manifestFolder('apiVersion: v1\nkind: ConfigMap\n')).toBe('manifests');
  });
});
