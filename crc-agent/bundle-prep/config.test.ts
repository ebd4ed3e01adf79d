import { describe, expect, test } from '@jest/globals';
import { ConfigError } from '../config.js';
import { loadBundlePrepConfig } from './config.js';

const ENV = {
  BUNDLE_URL: 'https://mirror.example/crc/4.16.0/crc_libvirt_4.16.0_amd64.crcbundle?token=x',
  SHA256_URL: 'https://mirror.example/crc/4.16.0/sha256sum.txt',
  NAMESPACE: 'guestcluster-operator-system',
  BUNDLE_NAME: 'crc-4.16.0-amd64',
  BUNDLE_UID: '3f1c2a10-0000-4000-8000-000000000001',
  SSH_SECRET_NAME: 'crc-4.16.0-amd64-ssh-key',
  METADATA_CONFIGMAP_NAME: 'crc-4.16.0-amd64-metadata',
};

describe('bundle-prep configuration', () => {
  test('reads the prep Job environment with the mount defaults', () => {
    expect(loadBundlePrepConfig(ENV)).toEqual({
      bundleUrl: ENV.BUNDLE_URL,
      sha256Url: ENV.SHA256_URL,
      namespace: ENV.NAMESPACE,
      bundleName: ENV.BUNDLE_NAME,
      bundleUid: ENV.BUNDLE_UID,
      sshSecretName: ENV.SSH_SECRET_NAME,
      metadataConfigMapName: ENV.METADATA_CONFIGMAP_NAME,
      goldenDir: '/golden',
      scratchDir: '/work',
      terminationMessagePath: '',
    });
    expect(loadBundlePrepConfig({ ...ENV, GOLDEN_DIR: '/g', SCRATCH_DIR: '/s' })).toMatchObject({
      goldenDir: '/g',
      scratchDir: '/s',
    });
  });

  test('names every missing variable', () => {
    expect(() => loadBundlePrepConfig({ ...ENV, NAMESPACE: ' ', BUNDLE_UID: undefined })).toThrow(
      new ConfigError('missing required configuration: NAMESPACE, BUNDLE_UID must be set'),
    );
  });

  test.each([
    [
      'BUNDLE_URL',
      'ftp://mirror.example/b.crcbundle',
      'BUNDLE_URL="ftp://mirror.example/b.crcbundle" is not an http(s) URL',
    ],
    ['SHA256_URL', 'sha256sum.txt', 'SHA256_URL="sha256sum.txt" is not a URL'],
    ['BUNDLE_URL', 'https://mirror.example/crc/', 'does not end with a bundle file name'],
    ['BUNDLE_URL', 'https://mirror.example/crc/%2E%2E', 'does not end with a bundle file name'],
    [
      'BUNDLE_URL',
      'https://mirror.example/a%2Fb.crcbundle',
      'does not end with a bundle file name',
    ],
  ])('rejects %s=%s', (variable, value, message) => {
    expect(() => loadBundlePrepConfig({ ...ENV, [variable]: value })).toThrow(message);
  });
});
