import type {
  V1CustomResourceColumnDefinition,
  V1CustomResourceDefinition,
  V1JSONSchemaProps,
} from '@kubernetes/client-node';

/**
 * The third-party kinds the operator reads and writes (KubeVirt, CDI, HyperShift, OpenShift routing
 * and configuration, and the operators' singletons that the platform-readiness gate checks). On a
 * real management cluster their own operators install these CRDs; here we install stand-ins with
 * the same group, version, names and scope, a status subresource, and an open schema, so that the
 * operator talks to them exactly as it would on OpenShift.
 */
interface ThirdPartyKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  columns?: V1CustomResourceColumnDefinition[];
}

const AGE: V1CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};

export const THIRD_PARTY_KINDS: readonly ThirdPartyKind[] = [
  {
    group: 'kubevirt.io',
    version: 'v1',
    kind: 'VirtualMachine',
    plural: 'virtualmachines',
    scope: 'Namespaced',
    shortNames: ['vm', 'vms'],
    columns: [AGE, { name: 'Status', type: 'string', jsonPath: '.status.printableStatus' }],
  },
  {
    group: 'kubevirt.io',
    version: 'v1',
    kind: 'VirtualMachineInstance',
    plural: 'virtualmachineinstances',
    scope: 'Namespaced',
    shortNames: ['vmi', 'vmis'],
    columns: [AGE, { name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
  },
  {
    group: 'cdi.kubevirt.io',
    version: 'v1beta1',
    kind: 'DataVolume',
    plural: 'datavolumes',
    scope: 'Namespaced',
    shortNames: ['dv', 'dvs'],
    columns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }, AGE],
  },
  {
    group: 'hypershift.openshift.io',
    version: 'v1beta1',
    kind: 'HostedCluster',
    plural: 'hostedclusters',
    scope: 'Namespaced',
    shortNames: ['hc', 'hcs'],
    columns: [
      {
        name: 'Version',
        type: 'string',
        jsonPath: '.status.version.history[?(@.state=="Completed")].version',
      },
      AGE,
    ],
  },
  {
    group: 'hypershift.openshift.io',
    version: 'v1beta1',
    kind: 'NodePool',
    plural: 'nodepools',
    scope: 'Namespaced',
    shortNames: ['np', 'nps'],
    columns: [{ name: 'Nodes', type: 'integer', jsonPath: '.status.replicas' }, AGE],
  },
  {
    group: 'route.openshift.io',
    version: 'v1',
    kind: 'Route',
    plural: 'routes',
    scope: 'Namespaced',
    columns: [{ name: 'Host', type: 'string', jsonPath: '.spec.host' }, AGE],
  },
  {
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    scope: 'Cluster',
  },
  {
    group: 'config.openshift.io',
    version: 'v1',
    kind: 'ClusterVersion',
    plural: 'clusterversions',
    scope: 'Cluster',
  },
  {
    group: 'hco.kubevirt.io',
    version: 'v1beta1',
    kind: 'HyperConverged',
    plural: 'hyperconvergeds',
    scope: 'Namespaced',
  },
  {
    group: 'multicluster.openshift.io',
    version: 'v1',
    kind: 'MultiClusterEngine',
    plural: 'multiclusterengines',
    scope: 'Cluster',
    shortNames: ['mce'],
  },
];

// Typed models use client-node's field names; its serializer writes `x-kubernetes-...` on the wire.
const OPEN_OBJECT: V1JSONSchemaProps = {
  type: 'object',
  x_kubernetes_preserve_unknown_fields: true,
};

/** Builds the stand-in CRD for one third-party kind. */
export function thirdPartyCrd(kind: ThirdPartyKind): V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${kind.plural}.${kind.group}`,
      labels: { 'guestcluster.opdev.io/simulated-platform': 'true' },
    },
    spec: {
      group: kind.group,
      scope: kind.scope,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.kind.toLowerCase(),
        ...(kind.shortNames ? { shortNames: kind.shortNames } : {}),
      },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          ...(kind.columns ? { additionalPrinterColumns: kind.columns } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: OPEN_OBJECT, status: OPEN_OBJECT },
            },
          },
        },
      ],
    },
  };
}
