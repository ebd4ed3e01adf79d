import { describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../../client/api/resources.js';
import type { StoredCluster } from '../../kube/objects.js';
import {
  buildPrepAccount,
  buildPrepBinding,
  buildPrepOutputs,
  buildPrepRole,
} from './prep-access.js';

const bundle: StoredCluster<CRCBundle> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'crc-4.16.0-amd64', uid: 'uid-1', resourceVersion: '1' },
  spec: { version: '4.16.0' },
};
const metadata = (name: string): object => ({
  name,
  namespace: 'ops',
  labels: {
    'opdev.io/managed-by': 'guestcluster-operator',
    'opdev.io/crc-bundle': bundle.metadata.name,
  },
  ownerReferences: [
    {
      apiVersion: 'guestcluster.opdev.io/v1alpha1',
      kind: 'CRCBundle',
      name: bundle.metadata.name,
      uid: 'uid-1',
      controller: true,
      blockOwnerDeletion: true,
    },
  ],
});

describe("a bundle's prep access", () => {
  it('is an account of its own with get and update on exactly its two outputs', () => {
    expect(buildPrepAccount(bundle, 'ops')).toEqual({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: metadata('crc-4.16.0-amd64-prep'),
    });
    expect(buildPrepRole(bundle, 'ops')).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: metadata('crc-4.16.0-amd64-prep'),
      rules: [
        {
          apiGroups: [''],
          resources: ['secrets'],
          verbs: ['get', 'update'],
          resourceNames: ['crc-4.16.0-amd64-ssh-key'],
        },
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'update'],
          resourceNames: ['crc-4.16.0-amd64-metadata'],
        },
      ],
    });
    expect(buildPrepBinding(bundle, 'ops')).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: metadata('crc-4.16.0-amd64-prep'),
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: 'crc-4.16.0-amd64-prep',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'crc-4.16.0-amd64-prep', namespace: 'ops' }],
    });
  });

  it('makes the outputs empty, for the Job to fill in', () => {
    expect(buildPrepOutputs(bundle, 'ops')).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: metadata('crc-4.16.0-amd64-ssh-key'),
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata('crc-4.16.0-amd64-metadata') },
    ]);
  });
});
