import { describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import { buildGoldenPvc, buildScratchPvc } from './bundle-pvcs.js';

function bundle(spec: Partial<CRCBundle['spec']> = {}): StoredCluster<CRCBundle> {
  return {
    apiVersion: 'guestcluster.opdev.io/v1alpha1',
    kind: 'CRCBundle',
    metadata: { name: 'crc-4.16.0-amd64', uid: 'uid-1', resourceVersion: '1' },
    spec: { version: '4.16.0', ...spec },
  };
}

describe('bundle PVCs', () => {
  it('builds the golden PVC, 35Gi by default, owned by the bundle', () => {
    expect(buildGoldenPvc(bundle(), 'ops')).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'crc-4.16.0-amd64-golden',
        namespace: 'ops',
        labels: {
          'opdev.io/managed-by': 'guestcluster-operator',
          'opdev.io/crc-bundle': 'crc-4.16.0-amd64',
        },
        ownerReferences: [
          {
            apiVersion: 'guestcluster.opdev.io/v1alpha1',
            kind: 'CRCBundle',
            name: 'crc-4.16.0-amd64',
            uid: 'uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '35Gi' } } },
    });
  });

  it.each<[string, Partial<CRCBundle['spec']>, string, string, string | undefined]>([
    ['defaults', {}, '35Gi', '40Gi', undefined],
    [
      'size and class',
      { goldenVolumeSize: '50Gi', storageClassName: 'fast' },
      '50Gi',
      '40Gi',
      'fast',
    ],
    ['empty class means the default class', { storageClassName: '' }, '35Gi', '40Gi', undefined],
  ])('%s', (_name, spec, goldenSize, scratchSize, storageClassName) => {
    const golden = buildGoldenPvc(bundle(spec), 'ops');
    const scratch = buildScratchPvc(bundle(spec), 'ops');
    expect(scratch.metadata.name).toBe('crc-4.16.0-amd64-scratch');
    expect(golden.spec.resources!.requests!.storage).toBe(goldenSize);
    expect(scratch.spec.resources!.requests!.storage).toBe(scratchSize);
    expect(golden.spec.storageClassName).toBe(storageClassName);
    expect(scratch.spec.storageClassName).toBe(storageClassName);
  });
});
