import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../operator/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { LocalControlPlane } from '../../dev/control-plane/control-plane.js';
import { quietManager, ReconcileRecorder } from './test-manager.js';

const CONFIG_MAPS = resourceType('v1', 'ConfigMap', 'configmaps');

/** This test stops an apiserver, so it runs its own control plane rather than the shared one. */
describe('the manager across an apiserver restart', () => {
  let plane: LocalControlPlane;
  let manager: Manager;
  let core: CoreV1Api;
  let managerStopped = false;
  const recorder = new ReconcileRecorder();

  beforeAll(async () => {
    plane = await LocalControlPlane.start();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(plane.kubeconfigPath);
    core = kubeConfig.makeApiClient(CoreV1Api);
    manager = quietManager(kubeConfig, (m) => ({
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
  afterAll(async () => {
    await manager?.stop();
    await plane?.stop();
  });

  it('recovers its watches and converges without restarting itself', async () => {
    const before = recorder.next('default/before');
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'before' } },
    });
    await before;

    await plane.restartApiServer();

    // Changes after the restart reach the reconciler through the resumed watch.
    const after = recorder.next('default/after');
    const changed = recorder.next('default/before');
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after' } },
    });
    await core.patchNamespacedConfigMap({
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
