import { describe, expect, it } from '@jest/globals';
import { gitHubRun } from '../client/lease/github-run.js';
import { readSettings } from '../action/inputs.js';
import { GUESTCLUSTER_API_VERSION, KINDS } from './api.js';
import { BUNDLES, INSTANCES, LEASES, POOLS } from '../client/api/resources.js';
import {
  crcBundleName,
  kubeconfigSecretName,
  kubeconfigSecretsCollide,
  MAX_KUBECONFIG_OWNER_NAME,
} from './names.js';

describe('names other parts rely on', () => {
  it('names the kubeconfig Secret of an instance or a lease after it, so equal names collide', () => {
    expect(kubeconfigSecretName('crc-pool-0')).toBe('crc-pool-0-kubeconfig');
    expect(kubeconfigSecretsCollide('crc-pool-0', 'crc-pool-0')).toBe(true);
    expect(kubeconfigSecretsCollide('crc-pool-0', 'crc-pool-1')).toBe(false);
    expect(kubeconfigSecretName('x'.repeat(MAX_KUBECONFIG_OWNER_NAME))).toHaveLength(253);
  });

  it('refuses in the Action a lease name whose kubeconfig Secret could not exist', () => {
    const settings = (leaseName: string): unknown =>
      readSettings(
        (name) =>
          ({
            'management-server': 'https://api.example:6443',
            'management-token': 't',
            namespace: 'ci',
            pool: 'p',
            'lease-name': leaseName,
          })[name] ?? '',
        gitHubRun({}),
        { RUNNER_TEMP: '/tmp' },
      );
    expect(() => settings('a'.repeat(MAX_KUBECONFIG_OWNER_NAME))).not.toThrow();
    expect(() => settings('a'.repeat(MAX_KUBECONFIG_OWNER_NAME + 1))).toThrow('lease-name');
  });

  it('names the bundle of a CRC version after the version and the architecture', () => {
    expect(crcBundleName('4.16.0')).toBe('crc-4.16.0-amd64');
    expect(crcBundleName('4.16.0', 'arm64')).toBe('crc-4.16.0-arm64');
  });

  it('speaks of the kinds as the CRDs define them', () => {
    for (const [type, kind] of [
      [POOLS, KINDS.pool],
      [LEASES, KINDS.lease],
      [INSTANCES, KINDS.instance],
      [BUNDLES, KINDS.bundle],
    ] as const)
      expect({ apiVersion: type.apiVersion, kind: type.kind }).toEqual({
        apiVersion: GUESTCLUSTER_API_VERSION,
        kind,
      });
  });
});
