import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../kube/resource-type.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import { crcDiskName, crcVmName } from './crc-naming.js';

/**
 * Record CRC identity (docs/reference/instances.md#crc-ownership): the VM and disk names, the VM's
 * and DataVolume's UIDs, and with `vmi` the VMI's UID, each verified to be the instance's. A pass
 * reads the cache; teardown reads `live`, for it must know the VMI before it deletes what proves
 * its pods ours.
 */
export async function recordCrcIdentity(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
  options: { live: boolean; vmi: boolean },
): Promise<void> {
  const instance = objects.instance;
  const crc = {
    ...draft.status.crc,
    vmName: crcVmName(instance),
    dataVolumeName: crcDiskName(instance),
  };
  const uidOf = async (type: ResourceType, name: string): Promise<string | undefined> => {
    const object = options.live
      ? await objects.live<KubeObject>(type, name)
      : objects.cached<KubeObject>(type, name);
    if (!object) return undefined;
    await objects.verify(type, object);
    return object.metadata?.uid;
  };
  const vmUID = await uidOf(VIRTUAL_MACHINES, crc.vmName);
  if (vmUID) crc.vmUID = vmUID;
  const dataVolumeUID = await uidOf(DATA_VOLUMES, crc.dataVolumeName);
  if (dataVolumeUID) crc.dataVolumeUID = dataVolumeUID;
  const vmiUID = options.vmi ? await uidOf(VIRTUAL_MACHINE_INSTANCES, crc.vmName) : undefined;
  if (vmiUID) crc.vmiUID = vmiUID;
  draft.status.crc = crc;
}
