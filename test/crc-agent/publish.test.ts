import { describe, expect, test } from '@jest/globals';
import type { V1Secret } from '@kubernetes/client-node';
import { publishHandoff } from '../../crc-agent/publish.js';
import type { Handoff } from '../../crc-agent/publish.js';
import { useWorld } from '../support/world.js';
import { createClusterInstance } from '../support/runners/agent-run.js';
import { coreApi, objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'crc-publish' });

function handoff(overrides: Partial<Handoff>): Handoff {
  return {
    instanceName: 'pub',
    namespace: ns.name,
    instanceUid: '',
    vmiUid: 'vmi-1',
    kubeconfig: 'apiVersion: v1\nkind: Config\n',
    ocpVersion: '4.16.0',
    ...overrides,
  };
}

describe('publishing the handoff Secret', () => {
  test('creates with a controller owner (no blockOwnerDeletion), then updates only on change', async () => {
    const uid = await createClusterInstance(objectsApi(ns), ns.name, 'pub');
    expect(await publishHandoff(ns.api, handoff({ instanceUid: uid }))).toBe('created');
    const name = 'pub-crc-raw-kubeconfig-vmi-1';
    const created = await coreApi(ns).readNamespacedSecret({ namespace: ns.name, name });
    expect(created.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'guestcluster.opdev.io/v1alpha1',
        kind: 'ClusterInstance',
        name: 'pub',
        uid,
        controller: true,
      },
    ]);
    expect(await publishHandoff(ns.api, handoff({ instanceUid: uid }))).toBe('unchanged');
    expect(await publishHandoff(ns.api, handoff({ instanceUid: uid, ocpVersion: '4.16.1' }))).toBe(
      'updated',
    );
    const updated = await coreApi(ns).readNamespacedSecret({ namespace: ns.name, name });
    expect(Buffer.from(updated.data!.ocpVersion!, 'base64').toString()).toBe('4.16.1');
  });

  test('fills in a handoff Secret the operator made empty, keeping its labels and owner', async () => {
    const uid = await createClusterInstance(objectsApi(ns), ns.name, 'made');
    const name = 'made-crc-raw-kubeconfig-vmi-1';
    const owner = {
      apiVersion: 'guestcluster.opdev.io/v1alpha1',
      kind: 'ClusterInstance',
      name: 'made',
      uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    await coreApi(ns).createNamespacedSecret({
      namespace: ns.name,
      body: {
        metadata: {
          name,
          namespace: ns.name,
          labels: { 'opdev.io/managed-by': 'crc-agent', 'opdev.io/cluster-instance': 'made' },
          ownerReferences: [owner],
        },
        type: 'Opaque',
      },
    });
    expect(await publishHandoff(ns.api, handoff({ instanceName: 'made', instanceUid: uid }))).toBe(
      'updated',
    );
    const filled = await coreApi(ns).readNamespacedSecret({ namespace: ns.name, name });
    expect(filled.metadata?.ownerReferences).toEqual([owner]);
    expect(Buffer.from(filled.data!.vmiUID!, 'base64').toString()).toBe('vmi-1');
  });

  test.each([
    ['has no owner', undefined],
    ['is owned by a ClusterInstance of another UID', 'taken'],
  ])('rejects an existing Secret that %s and leaves it unchanged', async (_case, ownerName) => {
    // A real owner: the garbage collector deletes dependents of owners that do not exist.
    const ownerUid = ownerName && (await createClusterInstance(objectsApi(ns), ns.name, ownerName));
    const name = `taken-crc-raw-kubeconfig-vmi-${ownerUid ?? 'none'}`;
    const existing: V1Secret = {
      metadata: {
        name,
        namespace: ns.name,
        labels: { 'opdev.io/managed-by': 'crc-agent', 'opdev.io/cluster-instance': 'taken' },
        ...(ownerUid
          ? {
              ownerReferences: [
                {
                  apiVersion: 'guestcluster.opdev.io/v1alpha1',
                  kind: 'ClusterInstance',
                  name: 'taken',
                  uid: ownerUid,
                  controller: true,
                },
              ],
            }
          : {}),
      },
      data: { kubeconfig: Buffer.from('old').toString('base64') },
    };
    const before = await coreApi(ns).createNamespacedSecret({ namespace: ns.name, body: existing });
    const attempt = publishHandoff(
      ns.api,
      handoff({
        instanceName: 'taken',
        instanceUid: 'expected-uid',
        vmiUid: `vmi-${ownerUid ?? 'none'}`,
      }),
    );
    await expect(attempt).rejects.toThrow('belongs to another owner');
    const after = await coreApi(ns).readNamespacedSecret({ namespace: ns.name, name });
    expect(after.metadata?.resourceVersion).toBe(before.metadata?.resourceVersion);
  });

  test('a legacy run (no instance UID) updates only an unowned Secret with both agent labels', async () => {
    expect(await publishHandoff(ns.api, handoff({ instanceName: 'legacy' }))).toBe('created');
    expect(
      await publishHandoff(ns.api, handoff({ instanceName: 'legacy', ocpVersion: '4.17.0' })),
    ).toBe('updated');
    await coreApi(ns).patchNamespacedSecret({
      namespace: ns.name,
      name: 'legacy-crc-raw-kubeconfig-vmi-1',
      body: [
        { op: 'replace', path: '/metadata/labels/opdev.io~1managed-by', value: 'someone-else' },
      ],
    });
    await expect(
      publishHandoff(ns.api, handoff({ instanceName: 'legacy', ocpVersion: '4.18.0' })),
    ).rejects.toThrow('has no verified agent identity');
  });
});
