import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { NamespacedType } from '../../../../client/kube/resource-type.js';
import type { RecordStore } from '../../../reconcile/recorded-objects.js';
import { ObjectRecords } from '../../../reconcile/recorded-objects.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import { crcDiskName, crcVmName } from './crc-naming.js';

/** What a crc instance records of the objects that carry its guest, by their kinds. */
export type CrcRole = 'VirtualMachine' | 'DataVolume' | 'VirtualMachineInstance';

export type CrcRecords = ObjectRecords<CrcRole>;

/** The status.crc fields of each role's name and UID (the VMI has the VM's name). */
const FIELDS = {
  VirtualMachine: { name: 'vmName', uid: 'vmUID' },
  DataVolume: { name: 'dataVolumeName', uid: 'dataVolumeUID' },
  VirtualMachineInstance: { name: 'vmName', uid: 'vmiUID' },
} as const satisfies Record<CrcRole, { name: string; uid: string }>;

/**
 * The records of a crc instance (docs/reference/instances.md#crc-ownership): status.crc's fixed
 * fields as the store, in the pass's draft. The ownership rule traces the dependents KubeVirt and
 * CDI make back to the UIDs recorded here.
 */
export function crcRecords(draft: InstanceStatusDraft): CrcRecords {
  const store: RecordStore<CrcRole> = {
    read: (role) => {
      const crc = draft.status.crc;
      const uid = crc?.[FIELDS[role].uid];
      if (!uid) return undefined;
      const namespace = draft.instance.metadata.namespace;
      return { role, kind: role, namespace, name: crc[FIELDS[role].name] ?? '', uid };
    },
    write: ({ role, name, uid }) => {
      const fields = FIELDS[role];
      draft.status.crc = { ...draft.status.crc, [fields.name]: name, [fields.uid]: uid };
    },
  };
  return new ObjectRecords(store);
}

const IDENTITY: readonly [CrcRole, NamespacedType, (objects: InstanceObjects) => string][] = [
  ['VirtualMachine', VIRTUAL_MACHINES, (objects) => crcVmName(objects.instance)],
  ['DataVolume', DATA_VOLUMES, (objects) => crcDiskName(objects.instance)],
  ['VirtualMachineInstance', VIRTUAL_MACHINE_INSTANCES, (objects) => crcVmName(objects.instance)],
];

/**
 * Record CRC identity (docs/reference/instances.md#crc-ownership): the VM and disk names, the VM's
 * and DataVolume's UIDs, and with `vmi` the VMI's UID, each verified to be the instance's before
 * anything is recorded. A pass reads the cache; teardown reads `live`, for it must know the VMI
 * before it deletes what proves its pods ours.
 */
export async function recordCrcIdentity(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
  options: { live: boolean; vmi: boolean },
): Promise<void> {
  const found: [CrcRole, NamespacedType, Stored<KubeObject>][] = [];
  for (const [role, type, nameOf] of options.vmi ? IDENTITY : IDENTITY.slice(0, 2)) {
    const name = nameOf(objects);
    const object = options.live
      ? await objects.live<KubeObject>(type, name)
      : objects.cached<KubeObject>(type, name);
    if (!object) continue;
    await objects.verify(type, object);
    found.push([role, type, object]);
  }
  recordCrcNames(draft);
  const records = crcRecords(draft);
  for (const [role, type, object] of found) records.record(role, type, object);
}

/** The names of the instance's VM and disk, which every later pass reads from status. */
export function recordCrcNames(draft: InstanceStatusDraft): void {
  const instance = draft.instance;
  draft.status.crc = {
    ...draft.status.crc,
    vmName: crcVmName(instance),
    dataVolumeName: crcDiskName(instance),
  };
}
