import { SERVICES } from '../../../../client/api/core-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  ROUTES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { VmProfile } from '../../../api/vm-profile.js';
import { profileVmiSpec } from '../../../api/vm-profile.js';
import type { Desired, DesiredMeta } from '../../../kube/objects.js';
import type { Secret } from '../../../kube/workloads.js';
import type { Instance } from '../core/instance-api.js';
import { commonLabels, endpointLabels } from '../core/naming.js';
import type { PlatformObject } from '../core/platform-object.js';
import { bootKeySecretName, crcApiName, crcDiskName, crcVmName } from './crc-naming.js';
import { atLeast, quantityBytes } from '../../../kube/quantity.js';
import { controllerReference } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

const DEFAULT_ROOT_VOLUME = '80Gi';
const API_PORT = 6443;

/** Where the root disk comes from: CDI imports a URL (manual) or clones the bundle's golden PVC. */
export type DiskSource =
  | { http: string }
  | {
      pvc: { namespace: string; name: string };
      storageClassName?: string;
      /** The golden disk's virtual size; the clone is never smaller. */
      virtualSizeBytes?: number;
      /** The golden PVC's storage request; CDI refuses to clone into a smaller one. */
      sourceRequest?: string;
    };

/** Where the agent finds the guest's SSH key. */
export interface SshKeyRef {
  secretName: string;
  dataKey: string;
}

/**
 * Name, namespace, common labels and the instance as controller: what the instance's objects carry.
 */
export function instanceMetadata(instance: Instance, name: string): DesiredMeta {
  return {
    name,
    namespace: instance.metadata.namespace,
    labels: commonLabels(instance),
    ownerReferences: [controllerReference(INSTANCES, instance)],
  };
}

/**
 * What a clone of the golden disk requests: the template's size, raised to the disk's virtual size
 * and to the golden PVC's own request. CDI clones through its CSI clone populator, which refuses
 * a target that requests less than its source (with the `storage` API CDI adds its filesystem
 * overhead to a Filesystem target on top, so the source's request is always enough).
 */
function cloneRequest(requested: string, source: Extract<DiskSource, { pvc: object }>): string {
  const size = atLeast(requested, source.virtualSizeBytes);
  const golden = source.sourceRequest;
  return golden && quantityBytes(golden) > quantityBytes(size) ? golden : size;
}

/** The root disk (docs/reference/generated-objects.md#datavolume). */
export function buildDataVolume(instance: Instance, source: DiskSource): Desired<PlatformObject> {
  const template = instance.spec.template;
  const requested = template.rootVolumeSize || DEFAULT_ROOT_VOLUME;
  const clone = 'pvc' in source;
  const storageClassName = template.storageClassName || (clone ? source.storageClassName : '');
  return {
    apiVersion: DATA_VOLUMES.apiVersion,
    kind: DATA_VOLUMES.kind,
    metadata: instanceMetadata(instance, crcDiskName(instance)),
    spec: {
      source: clone ? { pvc: { ...source.pvc } } : { http: { url: source.http } },
      storage: {
        resources: {
          requests: { storage: clone ? cloneRequest(requested, source) : requested },
        },
        ...(storageClassName ? { storageClassName } : {}),
      },
    },
  };
}

/**
 * The VM (docs/reference/generated-objects.md#virtualmachine): labels also on the VMI template, so
 * the VMI and launcher pod carry them. With the VM profile of a built bundle (its boot-key
 * binding), the profile's firmware, clock, interface and network, as the build's target VM had
 * them; without (the manual path, a downloaded bundle), KubeVirt's defaults.
 */
export function buildVirtualMachine(
  instance: Instance,
  profile?: VmProfile,
): Desired<PlatformObject> {
  const template = instance.spec.template;
  const fixed = profile && profileVmiSpec(profile);
  const disks = [{ name: 'rootdisk', disk: { bus: 'virtio' } }];
  return {
    apiVersion: VIRTUAL_MACHINES.apiVersion,
    kind: VIRTUAL_MACHINES.kind,
    metadata: instanceMetadata(instance, crcVmName(instance)),
    spec: {
      runStrategy: 'Always',
      template: {
        metadata: { labels: commonLabels(instance) },
        spec: {
          ...(template.vmNodeSelector ? { nodeSelector: { ...template.vmNodeSelector } } : {}),
          // A disposable guest is not worth a live migration: it stops for a node drain instead
          // of making virt-api refuse the launcher pod's eviction (HCO's cluster-wide LiveMigrate
          // policy on a VMI that cannot migrate), which would hold up MachineConfig rollouts.
          evictionStrategy: 'None',
          domain: {
            resources: { requests: { memory: template.memory, cpu: String(template.cores) } },
            ...(fixed
              ? {
                  firmware: fixed.domain.firmware,
                  clock: fixed.domain.clock,
                  devices: { disks, interfaces: fixed.domain.devices.interfaces },
                }
              : { devices: { disks } }),
          },
          ...(fixed ? { networks: fixed.networks } : {}),
          volumes: [{ name: 'rootdisk', dataVolume: { name: crcDiskName(instance) } }],
        },
      },
    },
  };
}

/**
 * The guest API Service (docs/reference/generated-objects.md#crc-api-service); it selects the
 * default VM name, as the reference does.
 */
export function buildApiService(instance: Instance): Desired<PlatformObject> {
  return {
    apiVersion: SERVICES.apiVersion,
    kind: SERVICES.kind,
    metadata: instanceMetadata(instance, crcApiName(instance.metadata.name)),
    spec: {
      type: 'ClusterIP',
      selector: { [LABEL_VM_NAME]: instance.metadata.name },
      ports: [{ name: 'api', protocol: 'TCP', port: API_PORT, targetPort: API_PORT }],
    },
  };
}

/** The passthrough API Route (docs/reference/generated-objects.md#crc-api-route). */
export function buildApiRoute(instance: Instance, hostname: string): Desired<PlatformObject> {
  const name = crcApiName(instance.metadata.name);
  return {
    apiVersion: ROUTES.apiVersion,
    kind: ROUTES.kind,
    metadata: { ...instanceMetadata(instance, name), labels: endpointLabels(instance) },
    spec: {
      host: hostname,
      to: { kind: 'Service', name, weight: 100 },
      port: { targetPort: 'api' },
      tls: { termination: 'passthrough', insecureEdgeTerminationPolicy: 'None' },
    },
  };
}

/** The instance's own copy of the bundle's boot key (docs/reference/instances.md#crc-boot-key). */
export function buildBootKeySecret(instance: Instance, keyBase64: string): Desired<Secret> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: instanceMetadata(instance, bootKeySecretName(instance.metadata.name)),
    type: 'Opaque',
    data: { id_ecdsa: keyBase64 },
  };
}
