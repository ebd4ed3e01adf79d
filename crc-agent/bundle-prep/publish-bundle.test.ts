import { describe, expect, test } from '@jest/globals';
import type { BundleOutputs } from './publish-bundle.js';
import {
  checkTakeOver,
  desiredMetadataConfigMap,
  desiredSshKeySecret,
  takeOverMetadata,
} from './publish-bundle.js';

const OUTPUTS: BundleOutputs = {
  namespace: 'ops',
  bundleName: 'crc-4.16.0-amd64',
  bundleUid: 'uid-1',
  sshSecretName: 'crc-4.16.0-amd64-ssh-key',
  metadataConfigMapName: 'crc-4.16.0-amd64-metadata',
  sshPrivateKey: 'key-bytes\n',
  ocpVersion: '4.16.7',
  archiveSha256: 'a'.repeat(64),
  diskSha256: 'b'.repeat(64),
  diskVirtualSizeBytes: 33285996544,
};

const OWNER = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  name: 'crc-4.16.0-amd64',
  uid: 'uid-1',
  controller: true,
};
const LABELS = {
  'opdev.io/managed-by': 'guestcluster-operator',
  'opdev.io/crc-bundle': 'crc-4.16.0-amd64',
};

describe('bundle outputs', () => {
  test('the SSH key Secret', () => {
    expect(desiredSshKeySecret(OUTPUTS)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: 'crc-4.16.0-amd64-ssh-key',
        namespace: 'ops',
        labels: LABELS,
        ownerReferences: [OWNER],
      },
      data: { id_ecdsa: Buffer.from('key-bytes\n').toString('base64') },
    });
  });

  test('the metadata ConfigMap', () => {
    expect(desiredMetadataConfigMap(OUTPUTS)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'crc-4.16.0-amd64-metadata',
        namespace: 'ops',
        labels: LABELS,
        ownerReferences: [OWNER],
      },
      data: {
        ocpVersion: '4.16.7',
        sha256: 'a'.repeat(64),
        diskSHA256: 'b'.repeat(64),
        diskVirtualSizeBytes: '33285996544',
      },
    });
  });

  test('an object controlled by something else is not taken over', () => {
    const meta = (kind: string, name: string): object => ({
      name: 'x',
      namespace: 'ops',
      ownerReferences: [{ apiVersion: 'v1', kind, name, uid: 'u', controller: true }],
    });
    expect(() => checkTakeOver(meta('Deployment', 'crc-4.16.0-amd64'), OUTPUTS.bundleName)).toThrow(
      'ops/x is controlled by Deployment crc-4.16.0-amd64, not by CRCBundle crc-4.16.0-amd64',
    );
    expect(() =>
      checkTakeOver(meta('CRCBundle', 'crc-4.17.0-amd64'), OUTPUTS.bundleName),
    ).toThrow();
    // A deleted predecessor of the same name, or no controller at all, may be replaced.
    expect(() =>
      checkTakeOver(meta('CRCBundle', 'crc-4.16.0-amd64'), OUTPUTS.bundleName),
    ).not.toThrow();
    expect(() => checkTakeOver({ name: 'x' }, OUTPUTS.bundleName)).not.toThrow();
  });

  test('taking over keeps other labels and non-controller owners, and replaces the controller', () => {
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'k' };
    const stale = { ...OWNER, uid: 'old' };
    const desired = desiredSshKeySecret(OUTPUTS).metadata;
    expect(
      takeOverMetadata(
        { name: 'x', labels: { team: 'a' }, ownerReferences: [other, stale], resourceVersion: '7' },
        desired,
      ),
    ).toEqual({
      name: 'x',
      labels: { team: 'a', ...LABELS },
      ownerReferences: [other, OWNER],
      resourceVersion: '7',
    });
  });
});
