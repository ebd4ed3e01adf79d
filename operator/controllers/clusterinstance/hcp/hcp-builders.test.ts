import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import {
  buildApiRoute,
  buildHostedCluster,
  buildNodePool,
  desiredReplicas,
} from './hcp-builders.js';
import type { Stored } from '../../../kube/objects.js';
import { plannedPlacement } from './hcp-placement.js';

const instance = (
  template: Partial<ClusterInstance['spec']['template']> = {},
): Stored<ClusterInstance> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'uid-1', resourceVersion: '1' },
  spec: {
    type: 'hcp',
    template: {
      releaseImage: 'quay.io/x/release:4.16.10',
      ocpVersion: '4.16.10',
      memory: '8Gi',
      cores: 2,
      ...template,
    },
  },
});

describe('hcp builders', () => {
  const placement = plannedPlacement(instance());
  const labels = {
    'opdev.io/managed-by': 'guestcluster-operator',
    'opdev.io/cluster-instance': 'pool-0',
    'opdev.io/cluster-instance-namespace': 'ci',
  };

  it('builds the HostedCluster', () => {
    const hc = buildHostedCluster(instance({ idmsRef: { name: 'idms' } }), {
      placement,
      hostname: 'api.example',
      pullSecretName: 'pull-secret',
      sshKeySecretName: 'ssh',
    });
    expect(hc.metadata).toEqual({
      name: placement.hostedClusterName,
      namespace: 'ci',
      labels,
      ownerReferences: [
        {
          apiVersion: 'guestcluster.opdev.io/v1alpha1',
          kind: 'ClusterInstance',
          name: 'pool-0',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    expect(hc.spec).toMatchObject({
      release: { image: 'quay.io/x/release:4.16.10' },
      controllerAvailabilityPolicy: 'SingleReplica',
      // The guest's apps domain is a subdomain of the management cluster's (*.apps.<guest>.apps.…),
      // also without MCE's defaulting webhook.
      platform: { type: 'KubeVirt', kubevirt: { baseDomainPassthrough: true } },
      networking: {
        networkType: 'OVNKubernetes',
        clusterNetwork: [{ cidr: '10.132.0.0/14' }],
        serviceNetwork: [{ cidr: '172.31.0.0/16' }],
      },
      etcd: {
        managementType: 'Managed',
        managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } },
      },
      pullSecret: { name: 'pull-secret' },
      sshKey: { name: 'ssh' },
      imageContentSources: [],
    });
    expect((hc.spec!.services as { service: string }[]).map((s) => s.service)).toEqual([
      'APIServer',
      'OAuthServer',
      'Konnectivity',
      'Ignition',
    ]);
    expect(hc.spec!.dns).toBeUndefined();
    // Published by a load balancer, which outlives any one management node (docs/adr/0016).
    expect(hc.spec!.services).toContainEqual({
      service: 'APIServer',
      servicePublishingStrategy: { type: 'LoadBalancer' },
    });
  });

  it.each([
    [{}, 1, { type: 'Persistent', persistent: { size: '32Gi' } }],
    [
      { nodePoolReplicas: 3, rootVolumeSize: '64Gi', storageClassName: 'fast' },
      3,
      { type: 'Persistent', persistent: { size: '64Gi', storageClass: 'fast' } },
    ],
  ])('builds the NodePool from %j', (template, replicas, rootVolume) => {
    const np = buildNodePool(instance(template), placement, {
      metadata: { name: placement.hostedClusterName, uid: 'hc-uid' },
    });
    expect(desiredReplicas(instance(template))).toBe(replicas);
    expect(np.metadata.name).toBe(`${placement.hostedClusterName}-workers`);
    // The plain reference HyperShift's NodePool controller writes: without blockOwnerDeletion,
    // which OpenShift's OwnerReferencesPermissionEnforcement would refuse to the operator.
    expect(np.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'hypershift.openshift.io/v1beta1',
        kind: 'HostedCluster',
        name: placement.hostedClusterName,
        uid: 'hc-uid',
      },
      {
        apiVersion: 'guestcluster.opdev.io/v1alpha1',
        kind: 'ClusterInstance',
        name: 'pool-0',
        uid: 'uid-1',
        controller: false,
        blockOwnerDeletion: true,
      },
    ]);
    expect(np.spec).toMatchObject({
      clusterName: placement.hostedClusterName,
      replicas,
      management: { upgradeType: 'Replace' },
      platform: {
        type: 'KubeVirt',
        kubevirt: { rootVolume, compute: { memory: '8Gi', cores: 2 } },
      },
    });
  });

  it('builds the API Route in the control plane namespace without owner references', () => {
    const route = buildApiRoute(instance(), placement, 'api.example');
    expect(route.metadata).toEqual({
      name: 'pool-0-api',
      namespace: placement.controlPlaneNamespace,
      labels,
    });
    expect(route.spec).toEqual({
      host: 'api.example',
      to: { kind: 'Service', name: 'kube-apiserver', weight: 100 },
      port: { targetPort: 6443 },
      tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
    });
  });
});
