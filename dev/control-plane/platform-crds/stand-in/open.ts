import type { StandInKind } from './schema.js';
import { open } from './schema.js';

type OpenKind = Omit<StandInKind, 'spec' | 'status'>;

const withOpenSchema = (kind: OpenKind): StandInKind => ({ ...kind, spec: open(), status: open() });
const STATUS = { status: {} };

/**
 * Stand-ins for the kinds whose real CRDs come from the Go module proxy, for a machine without it
 * (GUESTCLUSTER_PLATFORM_CRDS=stand-ins): the real group, version, names, scope and subresources
 * (a VirtualMachineInstance has no status subresource, as in KubeVirt), with an open schema. The
 * real schemas' validation is lost there; the README says so.
 */
const OPEN_KINDS: OpenKind[] = [
  {
    group: 'kubevirt.io',
    version: 'v1',
    kind: 'VirtualMachine',
    plural: 'virtualmachines',
    scope: 'Namespaced',
    shortNames: ['vm', 'vms'],
    subresources: STATUS,
    columns: [{ name: 'Status', type: 'string', jsonPath: '.status.printableStatus' }],
  },
  {
    group: 'kubevirt.io',
    version: 'v1',
    kind: 'VirtualMachineInstance',
    plural: 'virtualmachineinstances',
    scope: 'Namespaced',
    shortNames: ['vmi', 'vmis'],
    columns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
  },
  {
    group: 'cdi.kubevirt.io',
    version: 'v1beta1',
    kind: 'DataVolume',
    plural: 'datavolumes',
    scope: 'Namespaced',
    shortNames: ['dv', 'dvs'],
    subresources: STATUS,
    columns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Restarts', type: 'integer', jsonPath: '.status.restartCount' },
    ],
  },
  {
    group: 'route.openshift.io',
    version: 'v1',
    kind: 'Route',
    plural: 'routes',
    scope: 'Namespaced',
    subresources: STATUS,
    columns: [{ name: 'Host', type: 'string', jsonPath: '.status.ingress[0].host' }],
  },
  {
    group: 'operator.openshift.io',
    version: 'v1',
    kind: 'IngressController',
    plural: 'ingresscontrollers',
    scope: 'Namespaced',
    subresources: {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.availableReplicas',
      },
    },
  },
  ...(['Ingress', 'ClusterVersion', 'ClusterOperator', 'APIServer', 'OAuth'] as const).map(
    (kind): OpenKind => ({
      group: 'config.openshift.io',
      version: 'v1',
      kind,
      plural: `${kind.toLowerCase()}${kind === 'Ingress' ? 'es' : 's'}`,
      scope: 'Cluster',
      subresources: STATUS,
      ...(kind === 'ClusterOperator' ? { shortNames: ['co'] } : {}),
    }),
  ),
];

export const OPEN_STAND_INS: StandInKind[] = OPEN_KINDS.map(withOpenSchema);
