import { describe, expect, it } from '@jest/globals';
import { loadBundlePrepConfig } from '../crc-agent/bundle-prep/config.js';
import { desiredMetadataConfigMap } from '../crc-agent/bundle-prep/publish-bundle.js';
import type { CRCBundle } from '../client/api/resources.js';
import { bundleLabels as operatorBundleLabels } from '../operator/controllers/bundles/bundle-owner.js';
import { buildPrepJob } from '../operator/controllers/crcbundle/prep-job.js';
import type { StoredCluster } from '../operator/kube/objects.js';
import { bundleLabels, METADATA_KEYS, PREP_DIRS, PREP_ENV } from './bundle-prep.js';

const bundle: StoredCluster<CRCBundle> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'crc-4.16.0-amd64', uid: 'uid-1', resourceVersion: '1' },
  spec: { version: '4.16.0' },
};
const job = buildPrepJob(bundle, {
  namespace: 'ops',
  image: 'registry.example/crc-agent:1',
  mirrorUrl: 'https://mirror.example/crc',
});
const container = job.spec.template.spec.containers[0]!;
const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

describe('the bundle-prep contract', () => {
  it("gives bundle-prep's configuration loader exactly what the prep Job sets", () => {
    const config = loadBundlePrepConfig(env);
    expect(config).toMatchObject({
      namespace: 'ops',
      bundleName: 'crc-4.16.0-amd64',
      bundleUid: 'uid-1',
      goldenDir: PREP_DIRS.golden,
      scratchDir: PREP_DIRS.scratch,
    });
    const read = new Set<string>(Object.values(PREP_ENV));
    expect(Object.keys(env).filter((name) => !read.has(name))).toEqual([]);
    expect((container.volumeMounts ?? []).map((m) => m.mountPath).sort()).toEqual(
      [PREP_DIRS.golden, PREP_DIRS.scratch].sort(),
    );
  });

  it('publishes the metadata the CRCBundle controller reads, with the labels it puts on', () => {
    const config = desiredMetadataConfigMap({
      namespace: 'ops',
      bundleName: 'crc-4.16.0-amd64',
      bundleUid: 'uid-1',
      sshSecretName: 'crc-4.16.0-amd64-ssh-key',
      metadataConfigMapName: 'crc-4.16.0-amd64-metadata',
      sshPrivateKey: 'key',
      ocpVersion: '4.16.0',
      archiveSha256: 'a'.repeat(64),
      diskSha256: 'b'.repeat(64),
      diskVirtualSizeBytes: 1024,
    });
    expect(Object.keys(config.data ?? {}).sort()).toEqual(Object.values(METADATA_KEYS).sort());
    expect(config.data?.[METADATA_KEYS.diskVirtualSizeBytes]).toBe('1024');
    expect(config.metadata?.labels).toEqual(operatorBundleLabels(bundle));
    expect(bundleLabels('crc-4.16.0-amd64')).toEqual(operatorBundleLabels(bundle));
  });
});
