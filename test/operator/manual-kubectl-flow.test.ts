import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import type { ClusterLease } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { INSTANCES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { waitFor } from '../../dev/support/wait-for.js';
import {
  hcpPool,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';

const world = useWorld({ namespace: 'manual', enabled: true });
const { ns } = world;

/** The manual flow of the README, with kubectl, word for word (only the namespace is ours). */
describe('the manual kubectl flow', () => {
  let manager: Manager;
  afterAll(async () => {
    // Leases carry the release finalizer, pools their protection: both go with the manager running.
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it('applies a lease, waits for Bound, reads the outputs and the kubeconfig, and releases', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'crc-pool', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'crc-pool', 'crc-pool-0'));
    await settleInstance(ns.api, ns.name, 'crc-pool-0');
    manager = await world.startOperator();

    const sample = parse(
      await readFile(path.join(projectRoot(), 'samples', 'clusterlease.yaml'), 'utf8'),
    ) as ClusterLease;
    sample.metadata!.namespace = ns.name;
    const name = sample.metadata!.name!;
    const n = ['-n', ns.name];

    await kubectl(['apply', '-f', '-'], stringify(sample));
    await kubectl([
      'wait',
      ...n,
      `--for=jsonpath={.status.phase}=Bound`,
      `clusterlease/${name}`,
      '--timeout=60s',
    ]);
    await kubectl(['wait', ...n, '--for=condition=Ready', `clusterlease/${name}`, '--timeout=10s']);
    const outputs = await kubectl([
      'get',
      ...n,
      'clusterlease',
      name,
      '-o',
      'jsonpath={.status.topology} {.status.ocpVersion} {.status.kubeconfigSecretRef.name}',
    ]);
    expect(outputs.stdout).toBe(`hcp 4.16.10 ${name}-kubeconfig`);
    const kubeconfig = await kubectl([
      'get',
      ...n,
      'secret',
      `${name}-kubeconfig`,
      '-o',
      'jsonpath={.data.kubeconfig}',
    ]);
    expect(Buffer.from(kubeconfig.stdout, 'base64').toString()).toContain(
      'server: "https://api.crc-pool-0.example:6443"',
    );

    await kubectl(['delete', ...n, 'clusterlease', name]);
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'crc-pool-0',
      until: (i) => i === undefined,
      description: 'the released instance to be deleted',
    });
  });

  it('binds a lease applied together with its pool from one folder, the lease file first', async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'gc-apply-'));
    const pool = hcpPool(ns.name, 'folder-pool', { maxSize: 1 });
    const lease: ClusterLease = {
      apiVersion: 'guestcluster.opdev.io/v1alpha1',
      kind: 'ClusterLease',
      metadata: { name: 'folder-job', namespace: ns.name },
      spec: { poolRef: { name: 'folder-pool' } },
    };
    // kubectl applies a folder's files in name order: the lease goes first.
    await writeFile(path.join(folder, '10-lease.yaml'), stringify(lease));
    await writeFile(path.join(folder, '20-pool.yaml'), stringify(pool));
    await kubectl(['apply', '-f', folder]);
    const instance = await waitFor<KubeObject>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'folder-pool-0',
      until: (i) => i !== undefined,
      description: 'the instance the pool makes for the lease',
    });
    await settleInstance(ns.api, ns.name, instance!.metadata!.name!);
    await kubectl([
      'wait',
      '-n',
      ns.name,
      '--for=jsonpath={.status.phase}=Bound',
      'clusterlease/folder-job',
      '--timeout=60s',
    ]);
    await kubectl(['delete', '-n', ns.name, '-f', folder, '--wait']);
  });
});
