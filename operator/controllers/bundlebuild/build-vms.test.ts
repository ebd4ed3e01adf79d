import { describe, expect, it } from '@jest/globals';
import { ANNOTATION_CDI_DELETE_AFTER_COMPLETION } from '../../api/platform-resources.js';
import type { Bundle } from './build-meta.js';
import { buildNames } from './build-names.js';
import { buildGoldenDataVolume, buildRootDisk } from './build-vms.js';

const bundle = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'crc-custom', uid: 'uid-1', resourceVersion: '1' },
  spec: { arch: 'amd64', build: { releaseImage: 'quay.io/x/release@sha256:abc' } },
} as unknown as Bundle;

describe('the build DataVolumes', () => {
  it('opt out of CDI garbage collection, so a Succeeded one stays what the build recorded', () => {
    const names = buildNames(bundle.metadata.name, 'a1');
    for (const dv of [
      buildRootDisk(bundle, 'a1', 'ops', names),
      buildGoldenDataVolume(bundle, 'a1', 'ops', names, names.golden),
    ]) {
      expect(dv.metadata.annotations).toEqual({
        [ANNOTATION_CDI_DELETE_AFTER_COMPLETION]: 'false',
      });
      expect(dv.metadata.ownerReferences?.[0]?.uid).toBe('uid-1');
    }
  });
});
