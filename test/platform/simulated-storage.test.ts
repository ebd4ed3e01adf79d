import { access } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PVCS } from '../../client/api/core-resources.js';
import type { PersistentVolumeClaim } from '../../operator/kube/workloads.js';
import { useWorld } from '../support/world.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { SimulatedStorage } from '../../dev/platform/storage/simulated-storage.js';

const { ns } = useWorld({ namespace: 'storage' });

const claim = (name: string, storageClassName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: ns.name },
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '3Gi' } },
    ...(storageClassName ? { storageClassName } : {}),
  },
});

describe('simulated storage', () => {
  let storage: SimulatedStorage;
  beforeAll(async () => {
    storage = await SimulatedStorage.start({
      kubeConfig: ns.kubeConfig,
      namespace: ns.name,
      unprovisionedClasses: ['nowhere'],
    });
  });
  afterAll(async () => {
    await storage?.stop();
  });

  it('binds a claim with its requested capacity and gives it a folder; a deleted claim goes', async () => {
    await ns.api.create(PVCS, claim('disk'));
    const bound = await waitFor<PersistentVolumeClaim>(ns.kubeConfig, {
      type: PVCS,
      namespace: ns.name,
      name: 'disk',
      until: (c) => c?.status?.phase === 'Bound',
    });
    expect(bound!.status).toMatchObject({
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '3Gi' },
    });
    await access(await storage.whenBound(ns.name, 'disk', AbortSignal.timeout(60_000)));
    // The protection finalizer (added on creation) is removed as the PVC-protection controller would.
    expect(bound!.metadata!.finalizers).toContain('kubernetes.io/pvc-protection');
    await ns.api.delete(PVCS, 'disk', ns.name);
    await waitFor(ns.kubeConfig, {
      type: PVCS,
      namespace: ns.name,
      name: 'disk',
      until: (c) => c === undefined,
    });
  });

  it('leaves claims of a class without a provisioner Pending', async () => {
    const signal = AbortSignal.timeout(60_000);
    await ns.api.create(PVCS, claim('stuck', 'nowhere'));
    await ns.api.create(PVCS, claim('marker'));
    // Claims are handled in the order they come; once the later one is Bound the first was seen.
    await storage.whenBound(ns.name, 'marker', signal);
    const stuck = await ns.api.get<PersistentVolumeClaim>(PVCS, 'stuck', ns.name);
    expect(stuck.status?.phase ?? 'Pending').toBe('Pending');
    expect(storage.volumePath(ns.name, 'stuck')).toBeUndefined();
  });
});
