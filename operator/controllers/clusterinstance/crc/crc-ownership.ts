import type { ClusterInstance } from '../../../api/resources.js';
import { PODS } from '../../../api/core-resources.js';
import {
  DATA_VOLUMES,
  PERSISTENT_VOLUME_CLAIMS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../kube/resource-type.js';
import { OwnershipConflictError } from '../ownership-conflict.js';
import { crcDiskName, crcVmName } from './crc-naming.js';

/** What the ownership rule (spec §2.3.6) says about an object. */
export type OwnershipVerdict =
  | { owned: true }
  /** Owned through a parent that must be read and verified in turn. */
  | { parent: { type: ResourceType; name: string; uid: string } }
  | { conflict: string };

/** Dependents KubeVirt and CDI create for the instance's objects: kind, owner kind, owner name, recorded UID. */
function parentRule(
  object: KubeObject,
  instance: ClusterInstance,
): { owner: ResourceType; name: string; recorded: string | undefined } | undefined {
  const crc = instance.status?.crc;
  switch (object.kind) {
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

const describe = (object: KubeObject): string =>
  `CRC resource ${object.kind ?? 'object'} ${object.metadata?.namespace}/${object.metadata?.name}`;

/**
 * The crc ownership rule: in the instance namespace, and controlled by the instance, or (a VMI,
 * PVC or launcher pod) controlled by the instance's VM, DataVolume or VMI of the recorded UID,
 * or of a parent that is itself verified.
 */
export function crcOwnership(object: KubeObject, instance: ClusterInstance): OwnershipVerdict {
  const meta = object.metadata ?? {};
  if (meta.namespace !== instance.metadata!.namespace)
    return { conflict: `${describe(object)} is outside the instance namespace` };
  const controller = (meta.ownerReferences ?? []).find((ref) => ref.controller);
  if (controller?.uid && controller.uid === instance.metadata!.uid) return { owned: true };
  const rule = parentRule(object, instance);
  if (controller?.uid && rule) {
    if (controller.kind === rule.owner.kind && controller.name === rule.name) {
      if (rule.recorded && controller.uid === rule.recorded) return { owned: true };
      return { parent: { type: rule.owner, name: rule.name, uid: controller.uid } };
    }
    return { conflict: `${describe(object)} belongs to another owner UID ${controller.uid}` };
  }
  return {
    conflict: `${describe(object)} is not owned by ClusterInstance ${instance.metadata!.name} (UID ${instance.metadata!.uid})`,
  };
}

/** Whether the instance is the object's controller (objects it may delete or adopt without doubt). */
export function controlledBy(object: KubeObject | undefined, instance: ClusterInstance): boolean {
  return !!object?.metadata?.ownerReferences?.some(
    (ref) => ref.controller && ref.uid === instance.metadata!.uid,
  );
}

/**
 * Verifies an object, reading parents with `read` (live) as the rule requires; throws an
 * OwnershipConflictError on a conflict.
 */
export async function verifyCrcOwnership(
  object: KubeObject,
  instance: ClusterInstance,
  read: (type: ResourceType, name: string) => Promise<KubeObject | undefined>,
  depth = 0,
): Promise<void> {
  const verdict = crcOwnership(object, instance);
  if ('owned' in verdict) return;
  if ('conflict' in verdict) throw new OwnershipConflictError(verdict.conflict);
  const parent = depth < 3 ? await read(verdict.parent.type, verdict.parent.name) : undefined;
  if (!parent || parent.metadata?.uid !== verdict.parent.uid)
    throw new OwnershipConflictError(
      `${describe(object)} belongs to another owner UID ${verdict.parent.uid}`,
    );
  await verifyCrcOwnership(
    { ...parent, kind: parent.kind ?? verdict.parent.type.kind },
    instance,
    read,
    depth + 1,
  );
}
