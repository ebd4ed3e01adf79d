import type { JsonSchema } from '../crd-manifest.js';
import type { StandInKind } from './schema.js';
import {
  array,
  boolean,
  condition,
  integer,
  object,
  oneOf,
  quantity,
  string,
  stringMap,
} from './schema.js';

/**
 * HyperShift's HostedCluster and NodePool (hypershift.openshift.io/v1beta1, OpenShift 4.19), closed:
 * the fields the operator and the simulated HyperShift use, with what the real CRDs require and
 * validate for them (required fields, enums, the services count, the status the controllers
 * write). Used where the real CRDs are not at hand.
 */
const PLATFORM_TYPE = oneOf('AWS', 'Azure', 'IBMCloud', 'KubeVirt', 'Agent', 'PowerVS', 'None');
const image = (): JsonSchema => object({ image: string({ minLength: 1 }) }, ['image']);
const localRef = (): JsonSchema => object({ name: string() });

const publishingStrategy = object(
  {
    type: oneOf('LoadBalancer', 'NodePort', 'Route', 'None', 'S3'),
    nodePort: object({ address: string(), port: integer() }, ['address']),
    route: object({ hostname: string() }),
    loadBalancer: object({ hostname: string() }),
  },
  ['type'],
);

const hostedClusterSpec = object(
  {
    release: image(),
    controllerAvailabilityPolicy: oneOf('HighlyAvailable', 'SingleReplica'),
    infraID: string(),
    platform: object(
      {
        type: PLATFORM_TYPE,
        kubevirt: object({ baseDomainPassthrough: boolean(), generateID: string() }),
      },
      ['type'],
    ),
    dns: object(
      {
        baseDomain: string(),
        baseDomainPrefix: string(),
        publicZoneID: string(),
        privateZoneID: string(),
      },
      ['baseDomain'],
    ),
    networking: object({
      networkType: oneOf('OpenShiftSDN', 'Calico', 'OVNKubernetes', 'Other'),
      clusterNetwork: array(object({ cidr: string(), hostPrefix: integer() }, ['cidr'])),
      serviceNetwork: array(object({ cidr: string() }, ['cidr'])),
    }),
    etcd: object(
      {
        managementType: oneOf('Managed', 'Unmanaged'),
        managed: object(
          {
            storage: object(
              {
                type: oneOf('PersistentVolume'),
                persistentVolume: object({ size: quantity(), storageClassName: string() }),
              },
              ['type'],
            ),
          },
          ['storage'],
        ),
      },
      ['managementType'],
    ),
    services: array(
      object(
        {
          service: oneOf('APIServer', 'OAuthServer', 'OIDC', 'Konnectivity', 'Ignition', 'OVNSbDb'),
          servicePublishingStrategy: publishingStrategy,
        },
        ['service', 'servicePublishingStrategy'],
      ),
      { maxItems: 6 },
    ),
    pullSecret: localRef(),
    sshKey: localRef(),
    imageContentSources: array(object({ source: string(), mirrors: array(string()) }, ['source'])),
    configuration: object({
      apiServer: object({
        servingCerts: object({
          namedCertificates: array(
            object({ names: array(string()), servingCertificate: localRef() }),
          ),
        }),
      }),
    }),
  },
  ['release', 'pullSecret', 'platform', 'networking', 'etcd', 'services'],
);

const release = object({ image: string(), version: string() }, ['image', 'version']);
const hostedClusterStatus = object({
  version: object(
    {
      desired: release,
      history: array(
        object(
          {
            state: oneOf('Completed', 'Partial'),
            image: string(),
            version: string(),
            verified: boolean(),
            startedTime: string({ format: 'date-time' }),
            completionTime: string({ format: 'date-time', nullable: true }),
          },
          ['completionTime', 'image', 'startedTime', 'state', 'verified'],
        ),
      ),
      observedGeneration: { type: 'integer', format: 'int64' },
      availableUpdates: array(release, { nullable: true }),
    },
    ['availableUpdates', 'desired', 'observedGeneration'],
  ),
  kubeconfig: localRef(),
  controlPlaneEndpoint: object({ host: string(), port: integer() }, ['host', 'port']),
  conditions: array(condition()),
});

const nodePoolSpec = object(
  {
    clusterName: string({ minLength: 1 }),
    release: image(),
    replicas: integer(),
    management: object({ upgradeType: oneOf('Replace', 'InPlace'), autoRepair: boolean() }, [
      'upgradeType',
    ]),
    platform: object(
      {
        type: PLATFORM_TYPE,
        kubevirt: object(
          {
            rootVolume: object({
              type: oneOf('Persistent'),
              persistent: object({
                size: quantity(),
                storageClass: string(),
                accessModes: array(string()),
                volumeMode: oneOf('Block', 'Filesystem'),
              }),
            }),
            compute: object({ memory: quantity(), cores: integer() }),
            nodeSelector: stringMap(),
          },
          ['rootVolume'],
        ),
      },
      ['type'],
    ),
  },
  ['clusterName', 'management', 'platform', 'release'],
);

const nodePoolStatus = object({
  replicas: integer(),
  version: string(),
  conditions: array(condition(['type', 'status', 'lastTransitionTime'])),
});

export const HYPERSHIFT_STAND_INS: StandInKind[] = [
  {
    group: 'hypershift.openshift.io',
    version: 'v1beta1',
    kind: 'HostedCluster',
    plural: 'hostedclusters',
    scope: 'Namespaced',
    shortNames: ['hc', 'hcs'],
    spec: hostedClusterSpec,
    specRules: [
      {
        rule: "self.platform.type == 'IBMCloud' ? size(self.services) >= 3 : size(self.services) >= 4",
        message: 'spec.services in body should have at least 4 items or 3 for IBMCloud',
      },
    ],
    status: hostedClusterStatus,
    subresources: { status: {} },
    columns: [
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.status.version.history[?(@.state=="Completed")].version',
      },
      { name: 'KubeConfig', type: 'string', jsonPath: '.status.kubeconfig.name' },
      {
        name: 'Available',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
      },
    ],
  },
  {
    group: 'hypershift.openshift.io',
    version: 'v1beta1',
    kind: 'NodePool',
    plural: 'nodepools',
    scope: 'Namespaced',
    shortNames: ['np', 'nps'],
    spec: nodePoolSpec,
    status: nodePoolStatus,
    subresources: {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    },
    columns: [
      { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName' },
      { name: 'Desired Nodes', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Current Nodes', type: 'integer', jsonPath: '.status.replicas' },
      { name: 'Version', type: 'string', jsonPath: '.status.version' },
    ],
  },
];
