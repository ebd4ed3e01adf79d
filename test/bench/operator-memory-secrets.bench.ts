import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from '@jest/globals';
import { SECRETS } from '../../client/api/resources.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';
import { inBatches } from '../support/batches.js';
import { useWorld } from '../support/world.js';
import { reportBench } from './bench-report.js';

const { ns } = useWorld({ namespace: 'bench-secrets', awaitNamespaceDeletion: true });
const SECRET_COUNT = Number(process.env.BENCH_SECRETS ?? 300);
const SECRET_BYTES = 256 * 1024;
/** What the unrelated Secrets may add to the operator: the cache holds none of them. */
const TARGET_EXTRA_MB = 10;

async function residentMegabytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

async function heapUsedMegabytes(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^guestcluster_nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1]) / 1024 / 1024;
}

/**
 * The operator's memory with many large Secrets it has nothing to do with (a shared management
 * cluster is full of them), against the same operator without them, in the same run. It caches
 * only the Secrets it manages (a label selector on its Secret informer).
 */
describe('operator memory with unrelated Secrets', () => {
  let operator: OperatorProcess | undefined;
  afterEach(async () => {
    operator?.child.kill('SIGKILL');
    await operator?.exited;
    operator = undefined;
  });

  /** Starts the operator (pool, lease and instance controllers) and measures it once synced. */
  async function measure(identity: string): Promise<{ rss: number; heap: number }> {
    operator = await startOperatorProcess({
      identity,
      namespace: ns.name,
      args: ['--controllers=clusterpool,clusterlease,clusterinstance'],
    });
    await operator.logged('Caches synced; starting controllers');
    const figures = {
      rss: await residentMegabytes(operator.child.pid!),
      heap: await heapUsedMegabytes(operator.metricsPort),
    };
    operator.child.kill('SIGTERM');
    await operator.exited;
    operator = undefined;
    return figures;
  }

  it(`is measured with ${SECRET_COUNT} unrelated Secrets of ${SECRET_BYTES / 1024} KiB`, async () => {
    const without = await measure('secrets-without');
    await inBatches(
      Array.from({ length: SECRET_COUNT }, (_, i) => `unrelated-${i}`),
      10,
      (name) =>
        ns.api.create(SECRETS, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name, namespace: ns.name },
          type: 'Opaque',
          data: { blob: randomBytes(SECRET_BYTES).toString('base64') },
        } as never),
    );
    const withSecrets = await measure('secrets-with');
    expect(withSecrets.rss).toBeGreaterThan(0);
    const extra = withSecrets.rss - without.rss;
    await reportBench({
      benchmark: 'operator-memory-secrets',
      description: `resident memory of the operator when its caches have synced, with and without ${SECRET_COUNT} unrelated Secrets of ${SECRET_BYTES / 1024} KiB in its namespace`,
      figures: {
        'RSS without them (MB)': without.rss,
        'RSS with them (MB)': withSecrets.rss,
        'RSS added by them (MB)': extra,
        'V8 heap in use without them (MB)': without.heap,
        'V8 heap in use with them (MB)': withSecrets.heap,
      },
      reference: { name: 'RSS without them', value: without.rss },
      measured: { name: 'RSS with them', value: withSecrets.rss },
      target: `at most ${TARGET_EXTRA_MB} MB added`,
      targetMet: extra <= TARGET_EXTRA_MB,
    });
  });
});
