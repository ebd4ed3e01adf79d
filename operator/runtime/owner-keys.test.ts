import { describe, expect, it } from '@jest/globals';
import { resourceType } from '../../client/kube/resource-type.js';
import { labelKey, ownerKeys } from './owner-keys.js';

const POOLS = resourceType('guestcluster.opdev.io/v1alpha1', 'ClusterPool', 'clusterpools');
const BUNDLES = resourceType('guestcluster.opdev.io/v1alpha1', 'CRCBundle', 'crcbundles', false);

describe('ownerKeys', () => {
  it('maps owner references of the owner kind, in any version of its group', () => {
    const object = {
      metadata: {
        namespace: 'ci',
        ownerReferences: [
          { apiVersion: 'guestcluster.opdev.io/v1beta1', kind: 'ClusterPool', name: 'a', uid: '1' },
          { apiVersion: 'other.io/v1', kind: 'ClusterPool', name: 'b', uid: '2' },
          {
            apiVersion: 'guestcluster.opdev.io/v1alpha1',
            kind: 'ClusterLease',
            name: 'c',
            uid: '3',
          },
        ],
      },
    };
    expect(ownerKeys(object, POOLS)).toEqual(['ci/a']);
  });

  it('gives cluster-scoped owners a key without namespace', () => {
    const object = {
      metadata: {
        namespace: 'ops',
        ownerReferences: [
          {
            apiVersion: 'guestcluster.opdev.io/v1alpha1',
            kind: 'CRCBundle',
            name: 'crc-4',
            uid: '1',
          },
        ],
      },
    };
    expect(ownerKeys(object, BUNDLES)).toEqual(['crc-4']);
  });
});

describe('labelKey', () => {
  it('maps a label value to a key in the object namespace, and nothing without the label', () => {
    const map = labelKey('guestcluster.opdev.io/pool');
    expect(
      map({ metadata: { namespace: 'ci', labels: { 'guestcluster.opdev.io/pool': 'p' } } }),
    ).toEqual(['ci/p']);
    expect(map({ metadata: { namespace: 'ci' } })).toEqual([]);
  });
});
