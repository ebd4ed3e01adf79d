import { beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { ReconcileRecorder } from '../support/test-manager.js';
import { useWorld } from '../support/world.js';
import { coreApi } from '../support/client-node-clients.js';

const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');

/** This test stops an apiserver, so it runs its own control plane rather than the shared one. */
const world = useWorld({ namespace: 'restart', controlPlane: 'own' });

describe('the manager across an apiserver restart', () => {
  let manager: Manager;
  let managerStopped = false;
  const recorder = new ReconcileRecorder();

  beforeAll(async () => {
    manager = world.manager((m) => ({
      name: 'restart-test',
      forType: CONFIG_MAPS,
      reconcile: (key) => {
        recorder.record(key, m.informer<KubeObject>(CONFIG_MAPS).get(key) !== undefined);
        return Promise.resolve();
      },
    }));
    void manager.stopped.then(() => (managerStopped = true));
    await manager.start();
  });

  it('recovers its watches and converges without restarting itself', async () => {
    const before = recorder.next('default/before');
    await coreApi(world.ns).createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'before' } },
    });
    await before;

    await world.controlPlane.restartApiServer();

    // Changes after the restart reach the reconciler through the resumed watch.
    const after = recorder.next('default/after');
    const changed = recorder.next('default/before');
    await coreApi(world.ns).createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after' } },
    });
    await coreApi(world.ns).patchNamespacedConfigMap({
      name: 'before',
      namespace: 'default',
      body: [{ op: 'add', path: '/data', value: { x: 'y' } }],
    });
    expect(await after).toBe(true);
    expect(await changed).toBe(true);

    const restarts = await manager.metrics.watchRestarts.get();
    const failed = restarts.values.filter(
      (v) => v.labels.resource === 'ConfigMap' && v.labels.reason === 'error',
    );
    expect(failed.reduce((sum, v) => sum + v.value, 0)).toBeGreaterThan(0);
    expect(managerStopped).toBe(false);
  });
});
