import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CONFIG_MAPS, EVENTS, ROLES, SERVICE_ACCOUNTS } from '../../client/api/core-resources.js';
import { SECRETS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { fetch } from 'undici';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { ReconcileRecorder } from '../support/test-manager.js';
import { coreApi } from '../support/client-node-clients.js';

const world = useWorld({ namespace: 'manager' });
const { ns } = world;

describe('the manager', () => {
  const recorder = new ReconcileRecorder();
  let manager: Manager;

  beforeAll(async () => {
    manager = world.manager((m) => ({
      name: 'configmap-test',
      forType: CONFIG_MAPS,
      owns: [SECRETS],
      reconcile: (key) => {
        // Reads from the cache, as controllers do.
        recorder.record(key, m.informer<KubeObject>(CONFIG_MAPS).get(key) !== undefined);
        return Promise.resolve();
      },
    }));
    await manager.start();
  });
  afterAll(async () => {
    await manager.stop();
  });

  it('reconciles the root object on create, update and delete', async () => {
    const key = `${ns.name}/root`;
    let reconciled = recorder.next(key);
    await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'root' } },
    });
    expect(await reconciled).toBe(true);

    reconciled = recorder.next(key);
    await coreApi(ns).patchNamespacedConfigMap({
      name: 'root',
      namespace: ns.name,
      body: [{ op: 'add', path: '/data', value: { a: 'b' } }],
    });
    expect(await reconciled).toBe(true);

    reconciled = recorder.next(key);
    await coreApi(ns).deleteNamespacedConfigMap({ name: 'root', namespace: ns.name });
    // Deleted: the reconcile finds it gone from the cache.
    expect(await reconciled).toBe(false);
  });

  it('maps create, update and delete of an owned object to its owner', async () => {
    const owner = await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'owner' } },
    });
    const key = `${ns.name}/owner`;
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! },
    ];

    let reconciled = recorder.next(key);
    await coreApi(ns).createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'owned', ownerReferences } },
    });
    await reconciled;

    reconciled = recorder.next(key);
    await coreApi(ns).patchNamespacedSecret({
      name: 'owned',
      namespace: ns.name,
      body: [{ op: 'add', path: '/metadata/labels', value: { changed: 'yes' } }],
    });
    await reconciled;

    reconciled = recorder.next(key);
    await coreApi(ns).deleteNamespacedSecret({ name: 'owned', namespace: ns.name });
    expect(await reconciled).toBe(true);

    // An unowned Secret maps to nothing.
    const before = recorder.calls.length;
    const later = recorder.next(key);
    await coreApi(ns).createNamespacedSecret({
      namespace: ns.name,
      body: { metadata: { name: 'stranger' } },
    });
    await coreApi(ns).patchNamespacedConfigMap({
      name: 'owner',
      namespace: ns.name,
      body: [{ op: 'add', path: '/data', value: { poke: '1' } }],
    });
    await later;
    // Only the owner's own patch is reconciled (a pass for an earlier event of the owner may
    // still come in between): nothing is reconciled for the stranger.
    expect(new Set(recorder.calls.slice(before).map((c) => c.key))).toEqual(new Set([key]));
  });

  it('starts the cache of a kind first used after the start, and keeps it current', async () => {
    await ns.api.create(SERVICE_ACCOUNTS, { metadata: { name: 'early', namespace: ns.name } });
    // No registration watches ServiceAccounts: their cache is made only now, the manager running.
    const informer = manager.informer<KubeObject>(SERVICE_ACCOUNTS);
    await informer.synced;
    expect(informer.get(`${ns.name}/early`)?.metadata?.name).toBe('early');
    const added = new Promise<string>((resolve) =>
      informer.addHandlers({
        onAdd: (account) => {
          if (account.metadata?.name === 'late') resolve(account.metadata.name);
        },
      }),
    );
    await ns.api.create(SERVICE_ACCOUNTS, { metadata: { name: 'late', namespace: ns.name } });
    expect(await added).toBe('late');
  });

  it('lets a reader of a kind first used after the start wait until its cache holds it', async () => {
    const role = { metadata: { name: 'reader', namespace: ns.name }, rules: [] };
    const created = await ns.api.create<KubeObject>(ROLES, role);
    const roles = await manager.ports.cache.read<KubeObject>(ROLES);
    expect(roles.get('reader', ns.name)?.metadata.uid).toBe(created.metadata!.uid);
    expect(roles.list(ns.name).map((r) => r.metadata.name)).toEqual(['reader']);
  });

  it('records Events on objects, counting repeats', async () => {
    const target = await ns.api.create<KubeObject>(CONFIG_MAPS, {
      metadata: { name: 'evented', namespace: ns.name },
    });
    await manager.ports.events.record(
      target,
      'Warning',
      'ProvisioningFailed',
      'The DataVolume failed: quota exceeded',
    );
    await manager.ports.events.record(
      target,
      'Warning',
      'ProvisioningFailed',
      'The DataVolume failed: quota exceeded',
    );
    await manager.ports.events.record(
      target,
      'Normal',
      'Created',
      'Created Secret evented-kubeconfig',
    );

    const events = await ns.api.list<
      KubeObject & { reason: string; type: string; count: number; involvedObject: { uid: string } }
    >(EVENTS, {
      namespace: ns.name,
      fieldSelector: 'involvedObject.name=evented',
    });
    const summary = events.items
      .map((e) => ({ reason: e.reason, type: e.type, count: e.count, uid: e.involvedObject.uid }))
      .sort((a, b) => a.reason.localeCompare(b.reason));
    expect(summary).toEqual([
      { reason: 'Created', type: 'Normal', count: 1, uid: target.metadata!.uid },
      { reason: 'ProvisioningFailed', type: 'Warning', count: 2, uid: target.metadata!.uid },
    ]);
  });

  it('answers health, readiness and metrics', async () => {
    const [probePort, metricsPort] = manager.endpointPorts;
    const healthz = await fetch(`http://127.0.0.1:${probePort}/healthz`);
    expect(healthz.status).toBe(200);
    const readyz = await fetch(`http://127.0.0.1:${probePort}/readyz`);
    expect(readyz.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /guestcluster_reconcile_total\{controller="configmap-test",result="success"\} [1-9]/,
    );
    expect(metrics).toContain('guestcluster_workqueue_depth{controller="configmap-test"}');
    expect(metrics).toContain(
      'guestcluster_reconcile_duration_seconds_bucket{le="0.001",controller="configmap-test"}',
    );
    expect(metrics).toContain('guestcluster_process_resident_memory_bytes');
  });
});
