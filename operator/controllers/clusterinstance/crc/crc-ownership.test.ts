import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { KubeObject, OwnerReference, Stored } from '../../../kube/objects.js';
import type { ResourceType } from '../../../../client/kube/resource-type.js';
import { verifyOwnership } from '../core/ownership.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { crcOwnership, crcRule } from './crc-ownership.js';

const instance: Stored<ClusterInstance> = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'inst-uid', resourceVersion: '1' },
  spec: { type: 'crc', template: { ocpVersion: '4.16.0', memory: '16Gi', cores: 4 } },
  status: { crc: { vmUID: 'vm-uid', dataVolumeUID: 'dv-uid', vmiUID: 'vmi-uid' } },
};

const ref = (kind: string, name: string, uid: string, controller = true): OwnerReference => ({
  apiVersion: 'x/v1',
  kind,
  name,
  uid,
  controller,
});
const verifyCrcOwnership = (
  candidate: KubeObject,
  owner: Stored<ClusterInstance>,
  read: (type: ResourceType) => Promise<KubeObject | undefined>,
): Promise<void> => verifyOwnership(crcRule(owner), candidate, candidate.kind!, read);

const object = (
  kind: string,
  name: string,
  owners: OwnerReference[],
  namespace = 'ci',
): KubeObject => ({
  kind,
  metadata: { name, namespace, ownerReferences: owners },
});

describe('the crc ownership rule', () => {
  it.each([
    [
      'controlled by the instance',
      object('Secret', 's', [ref('ClusterInstance', 'pool-0', 'inst-uid')]),
      'owned',
    ],
    [
      'a VMI of the recorded VM',
      object('VirtualMachineInstance', 'pool-0', [ref('VirtualMachine', 'pool-0', 'vm-uid')]),
      'owned',
    ],
    [
      'a PVC of the recorded DataVolume',
      object('PersistentVolumeClaim', 'pool-0-rootdisk', [
        ref('DataVolume', 'pool-0-rootdisk', 'dv-uid'),
      ]),
      'owned',
    ],
    [
      'a launcher pod of the recorded VMI',
      object('Pod', 'virt-launcher-x', [ref('VirtualMachineInstance', 'pool-0', 'vmi-uid')]),
      'owned',
    ],
    [
      'a VMI of a VM not recorded yet',
      object('VirtualMachineInstance', 'pool-0', [ref('VirtualMachine', 'pool-0', 'new-vm')]),
      'parent',
    ],
    [
      'a VMI of another VM name',
      object('VirtualMachineInstance', 'pool-0', [ref('VirtualMachine', 'other', 'vm-uid')]),
      'conflict',
    ],
    [
      'a Secret of another instance',
      object('Secret', 's', [ref('ClusterInstance', 'pool-0', 'old-uid')]),
      'conflict',
    ],
    [
      'an owner that is not the controller',
      object('Secret', 's', [ref('ClusterInstance', 'pool-0', 'inst-uid', false)]),
      'conflict',
    ],
    ['no owner', object('Service', 's', []), 'conflict'],
    [
      'another namespace',
      object('Secret', 's', [ref('ClusterInstance', 'pool-0', 'inst-uid')], 'other'),
      'conflict',
    ],
  ])('%s → %s', (_case, candidate, verdict) => {
    expect(Object.keys(crcOwnership(candidate, instance))[0]).toBe(verdict);
  });

  it('follows a parent read live and verifies it in turn', async () => {
    const pod = object('Pod', 'virt-launcher-x', [
      ref('VirtualMachineInstance', 'pool-0', 'vmi-2'),
    ]);
    const reads: string[] = [];
    const world: Record<string, KubeObject> = {
      VirtualMachineInstance: {
        kind: 'VirtualMachineInstance',
        metadata: {
          name: 'pool-0',
          namespace: 'ci',
          uid: 'vmi-2',
          ownerReferences: [ref('VirtualMachine', 'pool-0', 'vm-uid')],
        },
      },
    };
    const read = (type: ResourceType): Promise<KubeObject | undefined> => {
      reads.push(type.kind);
      return Promise.resolve(world[type.kind]);
    };
    await expect(verifyCrcOwnership(pod, instance, read)).resolves.toBeUndefined();
    expect(reads).toEqual(['VirtualMachineInstance']);
  });

  it('refuses a dependent whose parent is gone or has another UID', async () => {
    const vmi = object('VirtualMachineInstance', 'pool-0', [
      ref('VirtualMachine', 'pool-0', 'vm-2'),
    ]);
    const gone = (): Promise<KubeObject | undefined> => Promise.resolve(undefined);
    await expect(verifyCrcOwnership(vmi, instance, gone)).rejects.toThrow(OwnershipConflictError);
    const replaced = (): Promise<KubeObject | undefined> =>
      Promise.resolve({
        kind: 'VirtualMachine',
        metadata: { name: 'pool-0', namespace: 'ci', uid: 'vm-3' },
      });
    await expect(verifyCrcOwnership(vmi, instance, replaced)).rejects.toThrow(
      'another owner UID vm-2',
    );
  });
});
