import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
import { OPERATOR_NODE_OPTIONS } from '../../operator/cli/node-options.js';
import { reportBench } from './bench-report.js';
import { inBatches } from '../support/batches.js';
import { summariseHeapSnapshot, takeHeapSnapshot } from './heap-snapshot.js';
import { reportedMemory, residentMemory } from './process-memory.js';

// 20,000 objects take a while to go with their namespace.
const { ns } = useWorld({
  namespace: 'bench-memory',
  awaitNamespaceDeletion: true,
  namespaceDeleteTimeoutMs: 15 * 60_000,
});
const COUNT = Number(process.env.BENCH_OBJECTS_EACH ?? 10_000);
const TARGET_MB = 250;

const SNAPSHOT_TIMEOUT_MS = 5 * 60_000;

/** Where the operator's resident memory is, and what the process says of its own. */
async function memoryFigures(operator: OperatorProcess): Promise<Record<string, number>> {
  const resident = await residentMemory(operator.child.pid!);
  const reported = await reportedMemory(operator.metricsPort);
  const spaces = Object.entries(reported.spaces).map(
    ([space, mb]) => [`  V8 ${space} committed (MB)`, mb] as const,
  );
  return {
    'V8 heap committed (MB)': reported.heapTotal,
    'V8 heap in use (MB)': reported.heapUsed,
    ...Object.fromEntries(spaces),
    'external, Buffers included (MB)': reported.external,
    'RSS of mapped files (MB)': resident.files,
    'RSS of malloc main arena (MB)': resident.brkHeap,
    'RSS of malloc thread arenas (MB)': resident.threadArenas,
    'malloc thread arenas': resident.arenaCount,
    'RSS of thread stacks (MB)': resident.stacks,
    'RSS of V8 heap pages, pooled ones included (MB)': resident.v8Pages,
    'RSS of other anonymous memory (MB)': resident.otherAnonymous,
    'CPU of the operator until then (s)': reported.cpuSeconds,
    '  of it in garbage collection (s)': reported.gcSeconds,
  };
}

/**
 * The operator process's resident memory with 10,000 ClusterInstances and 10,000 ClusterLeases in
 * its caches, once it has reconciled all of them (every lease waiting with its queue position).
 */
describe('operator memory', () => {
  let operator: OperatorProcess | undefined;
  let snapshots: string | undefined;
  afterAll(async () => {
    operator?.child.kill('SIGKILL');
    await operator?.exited;
    if (snapshots) await rm(snapshots, { recursive: true, force: true });
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

    snapshots = await mkdtemp(path.join(tmpdir(), 'operator-memory-'));
    operator = await startOperatorProcess({
      identity: 'memory',
      namespace: ns.name,
      args: ['--workers=4'],
      // As its Deployment runs it, and a heap snapshot on a signal, taken after the figures.
      env: {
        NODE_OPTIONS: `${OPERATOR_NODE_OPTIONS} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshots}`,
      },
    });
    await operator.logged('Caches synced; starting controllers');
    const atSync = (await residentMemory(operator.child.pid!)).total;
    await waitForList<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      timeoutMs: 15 * 60_000,
      description: `all ${COUNT} leases waiting with a queue position`,
      until: (items) =>
        items.length === COUNT && items.every((l) => l.status?.queuePosition !== undefined),
    });
    const settled = (await residentMemory(operator.child.pid!)).total;
    const breakdown = await memoryFigures(operator);
    const snapshot = await takeHeapSnapshot(
      operator.child.pid!,
      snapshots,
      `http://127.0.0.1:${operator.probePort}/healthz`,
      SNAPSHOT_TIMEOUT_MS,
    );
    const heap = await summariseHeapSnapshot(snapshot);
    process.stdout.write(
      [
        '\nlargest groups of the heap snapshot after reconciling all, by self size:',
        ...heap.map(
          (g) => `  ${g.name.padEnd(50)} ${String(g.count).padStart(9)} ${g.selfMb.toFixed(2)} MB`,
        ),
        '',
      ].join('\n'),
    );
    expect(settled).toBeGreaterThan(0);
    expect(heap.length).toBeGreaterThan(0);

    await reportBench({
      benchmark: 'operator-memory',
      description: `resident memory of the operator process with ${COUNT} instances and ${COUNT} leases cached and reconciled`,
      figures: {
        'RSS when caches synced (MB)': atSync,
        'RSS after reconciling all (MB)': settled,
        ...breakdown,
      },
      reference: { name: 'target', value: TARGET_MB },
      measured: { name: 'RSS after reconciling all', value: settled },
      target: `≤ ${TARGET_MB} MB`,
      targetMet: settled <= TARGET_MB,
    });
    // Reported first, so that a run over the target still shows where its memory went.
    expect(settled).toBeLessThanOrEqual(TARGET_MB);
  });
});
