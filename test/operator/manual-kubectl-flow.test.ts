import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parse, stringify } from 'yaml';
import type { ClusterLease } from '../../operator/api/resources.js';
import { INSTANCES, POOLS } from '../../operator/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { projectRoot } from '../control-plane/project-root.js';
import { useTestNamespace } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import { waitFor } from '../support/wait-for.js';
import {
  enableNamespace,
  hcpPool,
  poolInstance,
  settleInstance,
  startOperator,
} from './pool-fixtures.js';

const ns = useTestNamespace('manual');

/** The manual flow of DESIGN.md, with kubectl, word for word (only the namespace is ours). */
describe('the manual kubectl flow', () => {
  let manager: Manager;
  afterAll(async () => {
    await manager?.stop();
  });

  it('applies a lease, waits for Bound, reads the outputs and the kubeconfig, and releases', async () => {
    await enableNamespace(ns.api, ns.name);
    await ns.api.create(POOLS, hcpPool(ns.name, 'crc-pool', { maxSize: 1 }));
    await ns.api.create(INSTANCES, poolInstance(ns.name, 'crc-pool', 'crc-pool-0'));
    await settleInstance(ns.api, ns.name, 'crc-pool-0');
    manager = await startOperator(ns.kubeConfig, undefined, { namespace: ns.name });

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
});
