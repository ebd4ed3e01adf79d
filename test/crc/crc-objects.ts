import type { KubeObject } from '../../operator/kube/objects.js';
import type { RouteObject } from '../../dev/platform/router/simulated-router.js';
import type {
  DataVolumeObject,
  ServiceObject,
  VirtualMachineObject,
} from '../../dev/platform/host/platform-kinds.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINES,
} from '../../dev/platform/host/platform-kinds.js';

/**
 * The crc objects of docs/reference/generated-objects.md (DataVolume to API Route) as the operator
 * builds them (without the owner reference to a ClusterInstance), for tests that play the operator
 * against the simulated platform.
 */
const labels = (instance: string): Record<string, string> => ({
  'opdev.io/managed-by': 'guestcluster-operator',
  'opdev.io/cluster-instance': instance,
});

export type DiskSource =
  | { http: { url: string } }
  | { pvc: { namespace: string; name: string } }
  | { blank: Record<string, never> };

/** The root disk `<instance>-rootdisk`. */
export function rootDisk(
  namespace: string,
  instance: string,
  source: DiskSource,
): DataVolumeObject {
  return {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: { name: `${instance}-rootdisk`, namespace, labels: labels(instance) },
    spec: { source, storage: { resources: { requests: { storage: '80Gi' } } } },
  };
}

/** The VM `<instance>` with runStrategy Always and the root disk as its one volume. */
export function crcVirtualMachine(namespace: string, instance: string): VirtualMachineObject {
  return {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: { name: instance, namespace, labels: labels(instance) },
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: labels(instance) },
        spec: {
          evictionStrategy: 'None',
          domain: {
            resources: { requests: { memory: '16Gi', cpu: '4' } },
            devices: { disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }] },
          },
          volumes: [{ name: 'rootdisk', dataVolume: { name: `${instance}-rootdisk` } }],
        },
      },
    },
  };
}

/** The Service `<instance>-crc-api`, selecting the launcher pod by `vm.kubevirt.io/name`. */
export function crcApiService(namespace: string, instance: string): ServiceObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${instance}-crc-api`, namespace, labels: labels(instance) },
    spec: {
      selector: { [LABEL_VM_NAME]: instance },
      ports: [{ name: 'api', protocol: 'TCP', port: 6443, targetPort: 6443 }],
    },
  };
}

/** The passthrough Route `<instance>-crc-api` to that Service's `api` port. */
export function crcApiRoute(namespace: string, instance: string, host: string): RouteObject {
  return {
    apiVersion: 'route.openshift.io/v1',
    kind: 'Route',
    metadata: {
      name: `${instance}-crc-api`,
      namespace,
      labels: { ...labels(instance), 'opdev.io/cluster-instance-namespace': namespace },
    },
    spec: {
      host,
      to: { kind: 'Service', name: `${instance}-crc-api`, weight: 100 },
      port: { targetPort: 'api' },
      tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
    },
  } as RouteObject & KubeObject;
}
