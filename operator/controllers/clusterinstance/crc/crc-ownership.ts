import { PODS } from '../../../../client/api/core-resources.js';
import {
  DATA_VOLUMES,
  PERSISTENT_VOLUME_CLAIMS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../../client/kube/resource-type.js';
import type { Instance, InstanceApi } from '../core/instance-api.js';
import { InstanceObjects } from '../core/instance-objects.js';
import type { OwnershipRule, OwnershipVerdict } from '../core/ownership.js';
import { crcDiskName, crcVmName } from './crc-naming.js';

/**
 * Dependents KubeVirt and CDI create for the instance's objects: kind, owner kind, owner name,
 * recorded UID.
 */
function parentRule(
  kind: string,
  instance: Instance,
): { owner: ResourceType; name: string; recorded: string | undefined } | undefined {
  const crc = instance.status?.crc;
  switch (kind) {
    case VIRTUAL_MACHINE_INSTANCES.kind:
      return { owner: VIRTUAL_MACHINES, name: crcVmName(instance), recorded: crc?.vmUID };
    case PERSISTENT_VOLUME_CLAIMS.kind:
      return { owner: DATA_VOLUMES, name: crcDiskName(instance), recorded: crc?.dataVolumeUID };
    case PODS.kind:
      return { owner: VIRTUAL_MACHINE_INSTANCES, name: crcVmName(instance), recorded: crc?.vmiUID };
    default:
      return undefined;
  }
}

const describe = (object: KubeObject, kind: string | undefined): string =>
  `CRC resource ${kind ?? 'object'} ${object.metadata?.namespace}/${object.metadata?.name}`;

/** A dependent's verdict: its recorded parent, a parent to read and judge, or another owner. */
function parentVerdict(
  object: KubeObject,
  kind: string | undefined,
  rule: NonNullable<ReturnType<typeof parentRule>>,
  controller: { kind: string; name: string; uid: string },
): OwnershipVerdict {
  if (controller.kind !== rule.owner.kind || controller.name !== rule.name)
    return { conflict: `${describe(object, kind)} belongs to another owner UID ${controller.uid}` };
  if (rule.recorded && controller.uid === rule.recorded) return { owned: true };
  return { parent: { type: rule.owner, name: rule.name, uid: controller.uid } };
}

/**
 * The crc ownership rule (docs/reference/instances.md#crc-ownership): in the instance namespace,
 * and controlled by the instance, or (a VMI, PVC or launcher pod) controlled by the instance's VM,
 * DataVolume or VMI of the recorded UID, or of a parent that is itself verified.
 */
export function crcOwnership(
  object: KubeObject,
  instance: Instance,
  kind = object.kind,
): OwnershipVerdict {
  const meta = object.metadata ?? {};
  if (meta.namespace !== instance.metadata.namespace)
    return { conflict: `${describe(object, kind)} is outside the instance namespace` };
  const controller = (meta.ownerReferences ?? []).find((ref) => ref.controller);
  if (controller?.uid && controller.uid === instance.metadata.uid) return { owned: true };
  const rule = kind ? parentRule(kind, instance) : undefined;
  if (controller?.uid && rule) return parentVerdict(object, kind, rule, controller);
  return {
    conflict: `${describe(object, kind)} is not owned by ClusterInstance ${instance.metadata.name} (UID ${instance.metadata.uid})`,
  };
}

/**
 * The crc rule as the engine applies it; objects it ensures are never adopted (they are the
 * instance's or a conflict).
 */
export function crcRule(instance: Instance): OwnershipRule {
  return {
    verdict: (object, kind) => crcOwnership(object, instance, kind),
    orphaned: (object, kind, uid) =>
      `${describe(object, kind)} belongs to another owner UID ${uid}`,
    adopts: true,
  };
}

/** The objects of a crc instance, judged by the crc rule. */
export function crcObjects(api: InstanceApi, instance: Instance): InstanceObjects {
  return new InstanceObjects(api, instance, crcRule(instance));
}
