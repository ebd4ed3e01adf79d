import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS } from '../../client/api/resources.js';
import {
  hcpPool,
  lease,
  poolInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';
import { useWorld } from '../support/world.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { reportBench } from './bench-report.js';
import { inBatches } from '../support/batches.js';

// 20,000 objects take a while to go with their namespace.
const { ns } = useWorld({
  namespace: 'bench-memory',
  awaitNamespaceDeletion: true,
  namespaceDeleteTimeoutMs: 15 * 60_000,
});
const COUNT = Number(process.env.BENCH_OBJECTS_EACH ?? 10_000);
const TARGET_MB = 300;

async function residentMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return kilobytes / 1024;
}

/** The operator's own figure of its V8 heap in use, from its /metrics. */
async function heapUsedMegabytes(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const bytes = Number(/^guestcluster_nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]);
  return bytes / 1024 / 1024;
}

/**
 * The operator process's resident memory with 10,000 ClusterInstances and 10,000 ClusterLeases in
 * its caches, once it has reconciled all of them (every lease waiting with its queue position).
 */
describe('operator memory', () => {
  let operator: OperatorProcess | undefined;
  afterAll(async () => {
    operator?.child.kill('SIGKILL');
    await operator?.exited;
    // No operator runs now: drop the release and pool-protection finalizers so the namespace can go.
    const leases = await ns.api.list<ClusterLease>(LEASES, { namespace: ns.name });
    await inBatches(leases.items, 50, (l) =>
      ns.api.patch(
        LEASES,
        { name: l.metadata!.name!, namespace: ns.name },
        { metadata: { finalizers: null } },
      ),
    );
    await ns.api.patch(
      POOLS,
      { name: 'big', namespace: ns.name },
      { metadata: { finalizers: null } },
    );
  });

  it(`is measured with ${COUNT} instances and ${COUNT} leases`, async () => {
    // Instances still provisioning cover the leases' demand: the pool creates nothing more.
    await ns.api.create(POOLS, hcpPool(ns.name, 'big', { maxSize: COUNT }));
    await inBatches(
      Array.from({ length: COUNT }, (_, i) => `big-${i}`),
      50,
      (name) => createPoolInstance(ns.api, poolInstance(ns.name, 'big', name)),
    );
    await inBatches(
      Array.from({ length: COUNT }, (_, i) => `job-${i}`),
      50,
      (name) => ns.api.create(LEASES, lease(ns.name, name, 'big')),
    );

    operator = await startOperatorProcess({
      identity: 'memory',
      namespace: ns.name,
      args: ['--workers=4'],
    });
    await operator.logged('Caches synced; starting controllers');
    const atSync = await residentMegabytes(operator.child.pid!);
    await waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      timeoutMs: 15 * 60_000,
      description: `all ${COUNT} leases waiting with a queue position`,
      until: (items) =>
        items.length === COUNT && items.every((l) => l.status?.queuePosition !== undefined),
    });
    const settled = await residentMegabytes(operator.child.pid!);
    const heapUsed = await heapUsedMegabytes(operator.metricsPort);
    expect(settled).toBeGreaterThan(0);

    await reportBench({
      benchmark: 'operator-memory',
      description: `resident memory of the operator process with ${COUNT} instances and ${COUNT} leases cached and reconciled`,
      figures: {
        'RSS when caches synced (MB)': atSync,
        'RSS after reconciling all (MB)': settled,
        'V8 heap in use after reconciling all (MB)': heapUsed,
      },
      reference: { name: 'target', value: TARGET_MB },
      measured: { name: 'RSS after reconciling all', value: settled },
      target: `≤ ${TARGET_MB} MB`,
      targetMet: settled <= TARGET_MB,
    });
  });
});
