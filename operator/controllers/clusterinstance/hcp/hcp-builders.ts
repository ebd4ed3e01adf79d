import { HOSTED_CLUSTERS, NODE_POOLS, ROUTES } from '../../../api/platform-resources.js';
import type { Desired, KubeObject, OwnerReference, StoredMeta } from '../../../kube/objects.js';
import type { Instance } from '../core/instance-api.js';
import { apiRouteName, kasServingCertName } from './hcp-naming.js';
import { endpointLabels } from '../core/naming.js';
import type { PlatformObject } from '../core/platform-object.js';
import type { HcpPlacement } from './hcp-placement.js';
import type { KasServingCert } from './kas-serving-cert.js';
import { controllerReference, ownerReference } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

const DEFAULT_ROOT_VOLUME = '32Gi';
const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * Inputs of the HostedCluster that are read once, at creation
 * (docs/reference/instances.md#hcp-provisioning).
 */
export interface HostedClusterInputs {
  placement: HcpPlacement;
  hostname: string;
  pullSecretName: string;
  sshKeySecretName?: string;
}

/**
 * The HostedCluster (docs/reference/generated-objects.md#hostedcluster), in the instance namespace,
 * controlled by the instance.
 */
export function buildHostedCluster(
  instance: Instance,
  inputs: HostedClusterInputs,
): Desired<PlatformObject> {
  const template = instance.spec.template;
  return {
    apiVersion: HOSTED_CLUSTERS.apiVersion,
    kind: HOSTED_CLUSTERS.kind,
    metadata: {
      name: inputs.placement.hostedClusterName,
      namespace: inputs.placement.hostedClusterNamespace,
      labels: endpointLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    spec: {
      release: { image: template.releaseImage ?? '' },
      controllerAvailabilityPolicy:
        template.controllerAvailabilityPolicy === 'HighlyAvailable'
          ? 'HighlyAvailable'
          : 'SingleReplica',
      // The guest's base domain is the management cluster's apps domain (`*.apps.<guest>.apps.…`
      // through wildcard Routes), which a plain HyperShift install does not choose by itself.
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
      services: [
        // A load balancer survives the loss of any one management node; a NodePort address is
        // one node's (docs/adr/0016).
        { service: 'APIServer', servicePublishingStrategy: { type: 'LoadBalancer' } },
        { service: 'OAuthServer', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Konnectivity', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Ignition', servicePublishingStrategy: { type: 'Route' } },
      ],
      pullSecret: { name: inputs.pullSecretName },
      ...(template.idmsRef ? { imageContentSources: [] } : {}),
      ...(inputs.sshKeySecretName ? { sshKey: { name: inputs.sshKeySecretName } } : {}),
      configuration: {
        apiServer: {
          servingCerts: {
            namedCertificates: [
              {
                names: [inputs.hostname],
                servingCertificate: { name: kasServingCertName(instance.metadata.name) },
              },
            ],
          },
        },
      },
    },
  };
}

/** Replicas the NodePool should have: nodePoolReplicas when at least 1, else 1. */
export function desiredReplicas(instance: Instance): number {
  const replicas = instance.spec.template.nodePoolReplicas;
  return replicas !== undefined && replicas >= 1 ? replicas : 1;
}

/**
 * The NodePool (docs/reference/generated-objects.md#nodepool): owned by the HostedCluster and by
 * the instance. The HostedCluster's reference is the plain one HyperShift's NodePool controller
 * puts there anyway (EnsureOwnerRef): blockOwnerDeletion would need `update` on
 * hostedclusters/finalizers under OpenShift's OwnerReferencesPermissionEnforcement, which the
 * operator has no reason to hold.
 */
export function buildNodePool(
  instance: Instance,
  placement: HcpPlacement,
  hostedCluster: { metadata: Pick<StoredMeta, 'name' | 'uid'> },
): Desired<PlatformObject> {
  const template = instance.spec.template;
  const hcOwner: OwnerReference = {
    apiVersion: HOSTED_CLUSTERS.apiVersion,
    kind: HOSTED_CLUSTERS.kind,
    name: hostedCluster.metadata.name,
    uid: hostedCluster.metadata.uid,
  };
  return {
    apiVersion: NODE_POOLS.apiVersion,
    kind: NODE_POOLS.kind,
    metadata: {
      name: placement.nodePoolName,
      namespace: placement.hostedClusterNamespace,
      labels: endpointLabels(instance),
      ownerReferences: [hcOwner, ownerReference(INSTANCES, instance)],
    },
    spec: {
      clusterName: placement.hostedClusterName,
      release: { image: template.releaseImage ?? '' },
      replicas: desiredReplicas(instance),
      management: { upgradeType: 'Replace' },
      platform: {
        type: 'KubeVirt',
        kubevirt: {
          rootVolume: {
            type: 'Persistent',
            persistent: {
              size: template.rootVolumeSize || DEFAULT_ROOT_VOLUME,
              ...(template.storageClassName ? { storageClass: template.storageClassName } : {}),
            },
          },
          compute: { memory: template.memory, cores: template.cores },
          ...(template.vmNodeSelector ? { nodeSelector: template.vmNodeSelector } : {}),
        },
      },
    },
  };
}

/**
 * The API Route (docs/reference/generated-objects.md#hcp-api-route) in the control plane namespace:
 * labelled, no owner reference.
 */
export function buildApiRoute(
  instance: Instance,
  placement: HcpPlacement,
  hostname: string,
): Desired<PlatformObject> {
  return {
    apiVersion: ROUTES.apiVersion,
    kind: ROUTES.kind,
    metadata: {
      name: apiRouteName(instance.metadata.name),
      namespace: placement.controlPlaneNamespace,
      labels: endpointLabels(instance),
    },
    spec: {
      host: hostname,
      to: { kind: 'Service', name: 'kube-apiserver', weight: 100 },
      port: { targetPort: 6443 },
      tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
    },
  };
}

/**
 * The KAS serving certificate Secret (docs/reference/generated-objects.md#kas-serving-certificate),
 * controlled by the instance.
 */
export function buildKasSecret(
  instance: Instance,
  placement: HcpPlacement,
  cert: KasServingCert,
): Desired<SecretObject> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: kasServingCertName(instance.metadata.name),
      namespace: placement.hostedClusterNamespace,
      labels: endpointLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(cert.certificatePem), 'tls.key': b64(cert.keyPem) },
  };
}
