import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { PlacementWorld } from './hcp-placement.js';
import { placementConflict, plannedPlacement, recordedPlacement } from './hcp-placement.js';

const instance = (
  namespace: string,
  name: string,
  uid = `${namespace}-${name}-uid`,
): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace, name, uid, resourceVersion: '1' },
  spec: { type: 'hcp', template: { ocpVersion: '4.16.10', memory: '8Gi', cores: 2 } },
});

const me = instance('tenant', 'a-b');
const mine = plannedPlacement(me);
const hc = (namespace: string, name: string, ownerUid?: string): Stored<KubeObject> => ({
  metadata: {
    namespace,
    name,
    uid: `${namespace}-${name}-hc-uid`,
    resourceVersion: '1',
    ownerReferences: ownerUid
      ? [
          {
            apiVersion: 'guestcluster.opdev.io/v1alpha1',
            kind: 'ClusterInstance',
            name: 'x',
            uid: ownerUid,
          },
        ]
      : [],
  },
});
const world = (parts: Partial<PlacementWorld>): PlacementWorld => ({
  hostedClusters: [],
  namespaceExists: () => false,
  instances: [],
  ...parts,
});
const recorded = (
  i: Stored<ClusterInstance>,
  hcName: string,
  hcNamespace: string,
): Stored<ClusterInstance> => ({
  ...i,
  status: { hyperShift: { hostedClusterName: hcName, hostedClusterNamespace: hcNamespace } },
});

describe('hcp placement', () => {
  it.each<[string, PlacementWorld, string | undefined]>([
    ['nothing there', world({}), undefined],
    [
      'our own HostedCluster',
      world({ hostedClusters: [hc('tenant', mine.hostedClusterName, me.metadata.uid)] }),
      undefined,
    ],
    [
      'our own HostedCluster with its control plane namespace',
      world({
        hostedClusters: [hc('tenant', mine.hostedClusterName, me.metadata.uid)],
        namespaceExists: () => true,
      }),
      undefined,
    ],
    [
      'a foreign HostedCluster of that name',
      world({ hostedClusters: [hc('tenant', mine.hostedClusterName)] }),
      `HostedCluster tenant/${mine.hostedClusterName} already exists and does not belong to ClusterInstance a-b`,
    ],
    [
      'another HostedCluster with the same control plane namespace',
      world({ hostedClusters: [hc('tenant-gc', mine.hostedClusterName.slice(3))] }),
      `HostedCluster tenant-gc/${mine.hostedClusterName.slice(3)} already uses the hosted control plane namespace "${mine.controlPlaneNamespace}"`,
    ],
    [
      'an existing namespace of that name',
      world({ namespaceExists: (n) => n === mine.controlPlaneNamespace }),
      `namespace "${mine.controlPlaneNamespace}" already exists; it would become the hosted control plane namespace of HostedCluster tenant/${mine.hostedClusterName}`,
    ],
    [
      'another instance that recorded it',
      world({
        instances: [
          recorded(instance('tenant-gc', 'z'), mine.hostedClusterName.slice(3), 'tenant-gc'),
        ],
      }),
      `ClusterInstance tenant-gc/z already recorded the hosted control plane namespace "${mine.controlPlaneNamespace}"`,
    ],
  ])('%s', (_, w, conflict) => {
    expect(placementConflict(me, mine, w)).toBe(conflict);
  });

  it('does not see tenant-a/b as a rival of tenant/a-b', () => {
    const other = instance('tenant-a', 'b');
    const theirs = plannedPlacement(other);
    expect(theirs.controlPlaneNamespace).not.toBe(mine.controlPlaneNamespace);
    const w = world({
      hostedClusters: [hc('tenant-a', theirs.hostedClusterName, other.metadata.uid)],
      namespaceExists: (n) => n === theirs.controlPlaneNamespace,
      instances: [recorded(other, theirs.hostedClusterName, 'tenant-a')],
    });
    expect(placementConflict(me, mine, w)).toBeUndefined();
  });

  it('reads back what was recorded', () => {
    const r = recorded(me, mine.hostedClusterName, 'tenant');
    expect(recordedPlacement(r)).toEqual({
      ...mine,
      nodePoolName: `${mine.hostedClusterName}-workers`,
    });
    expect(recordedPlacement(me)).toBeUndefined();
  });
});
