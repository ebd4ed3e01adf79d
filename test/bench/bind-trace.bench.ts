import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  createPoolInstance,
  fillPool,
  hcpPool,
  lease,
  poolInstance,
  releaseLeasesAndPools,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { percentile, reportBench } from './bench-report.js';
import { LeaseWatchTimes } from './lease-watch-times.js';

const world = useWorld({ namespace: 'bench-trace', enabled: true, awaitNamespaceDeletion: true });
const { ns } = world;
/** Leases of each kind: as `kubectl apply` makes them, and as the Action and the CLI do. */
const EACH = Number(process.env.BENCH_LEASES ?? 30);

/** One HTTP request seen on undici's diagnostics channels, in ms of performance.now(). */
interface Request {
  method: string;
  path: string;
  created: number;
  /** Response headers in. */
  answered?: number;
  /** Body read to its end. */
  completed?: number;
}

/**
 * Every request this process sends (the operator runs in it), from undici's own diagnostics
 * channels (undici:request:create, :headers, :trailers): nothing in the operator is changed to
 * be traced.
 */
class RequestTrace {
  readonly requests: Request[] = [];
  private readonly open = new WeakMap<object, Request>();
  private readonly onCreate = (message: unknown): void => {
    const { request } = message as { request: { method: string; path: string } };
    const seen = { method: request.method, path: request.path, created: performance.now() };
    this.open.set(request, seen);
    this.requests.push(seen);
  };
  private readonly onHeaders = (message: unknown): void => {
    const seen = this.open.get((message as { request: object }).request);
    if (seen) seen.answered = performance.now();
  };
  private readonly onTrailers = (message: unknown): void => {
    const seen = this.open.get((message as { request: object }).request);
    if (seen) seen.completed = performance.now();
  };

  start(): void {
    subscribe('undici:request:create', this.onCreate);
    subscribe('undici:request:headers', this.onHeaders);
    subscribe('undici:request:trailers', this.onTrailers);
  }

  stop(): void {
    unsubscribe('undici:request:create', this.onCreate);
    unsubscribe('undici:request:headers', this.onHeaders);
    unsubscribe('undici:request:trailers', this.onTrailers);
  }

  /** Requests sent in [from, to), watches left out. */
  between(from: number, to: number): Request[] {
    return this.requests.filter(
      (r) => r.created >= from && r.created < to && !r.path.includes('watch=true'),
    );
  }
}

/** The request's kind and object, short: `PUT clusterinstances/warm-3/status`. */
function describeRequest(request: Request): string {
  const path = request.path.split('?')[0]!.replace(/^\/apis?\/(?:[^/]+\/)?v1[^/]*\//, '');
  return `${request.method} ${path.replace(/^namespaces\/[^/]+\//, '')}`;
}

/** The requests that ran one after another: each one starts after the previous one ended. */
function sequentialDepth(requests: Request[]): number {
  let depth = 0;
  let end = -Infinity;
  for (const request of [...requests].sort((a, b) => a.created - b.created)) {
    if (request.created >= end) depth += 1;
    end = Math.max(end, request.completed ?? request.answered ?? request.created);
  }
  return depth;
}

interface Traced {
  addedToBound: number;
  /** From ADDED on the watch to the operator's first request for the lease. */
  queueAndCache: number;
  requests: Request[];
  /** From the Bound status write's answer to seeing Bound on the watch. */
  delivery: number;
}

/**
 * One lease's way from created to Bound on warm spares, traced (issue: the bind path): the time
 * its event and queue take until the lease controller's first request, each request the operator
 * sends until the lease shows Bound (live reads and writes; cache reads send none), how many of
 * them run one after another, and the watch delivery of Bound. Leases as `kubectl apply` makes them
 * (no spec.subjects) and as the Action and CLI make them (a ServiceAccount in spec.subjects,
 * which adds the Role and RoleBinding of the lease's kubeconfig). Reported against one plain
 * status write.
 */
describe('bind path trace', () => {
  let manager: Manager;
  const trace = new RequestTrace();
  afterAll(async () => {
    trace.stop();
    await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
    await manager?.stop();
  });

  it(`traces ${EACH} leases of each kind`, async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'warm', { maxSize: 2 * EACH, warmSpares: 2 * EACH }),
    );
    await fillPool(ns.api, ns.name, 'warm', 2 * EACH);
    await createPoolInstance(ns.api, poolInstance(ns.name, 'other', 'reference'));
    let reference = await ns.api.get<ClusterInstance>(INSTANCES, 'reference', ns.name);
    const plainWrites: number[] = [];

    manager = await world.startOperator();
    await manager.informer(LEASES).synced;
    trace.start();
    const abort = new AbortController();
    const seen = new LeaseWatchTimes();
    await seen.start(ns.api, ns.name, abort.signal);

    const traced: Record<'apply' | 'subjects', Traced[]> = { apply: [], subjects: [] };
    for (let i = 0; i < 2 * EACH; i++) {
      const kind = i % 2 === 0 ? 'apply' : 'subjects';
      const started = performance.now();
      reference = await ns.api.updateStatus(INSTANCES, {
        ...reference,
        status: { phase: 'Provisioning', ocpVersion: `4.16.${i}` },
      });
      plainWrites.push(performance.now() - started);
      const name = `job-${i}`;
      const object = lease(ns.name, name, 'warm');
      if (kind === 'subjects')
        object.spec.subjects = [{ kind: 'ServiceAccount', name: 'ci', namespace: ns.name }];
      // The next lease starts after this bind's tail (its release finalizer).
      const settled = seen.settled(name);
      await ns.api.create(LEASES, object);
      await settled;
      const { added, bound: boundAt } = seen.of(name) as { added: number; bound: number };
      const requests = trace.between(added, boundAt);
      const statusWrite = requests.findLast(
        (r) => r.method === 'PUT' && r.path.includes(`/clusterleases/${name}/status`),
      );
      traced[kind].push({
        addedToBound: boundAt - added,
        queueAndCache: (requests[0]?.created ?? boundAt) - added,
        requests,
        delivery: boundAt - (statusWrite?.completed ?? statusWrite?.answered ?? boundAt),
      });
    }
    abort.abort();
    expect(traced.apply).toHaveLength(EACH);

    const plain = percentile(plainWrites, 50);
    const figures: Record<string, number> = { 'plain status write p50 (ms)': plain };
    for (const [kind, list] of Object.entries(traced)) {
      const p50 = (pick: (t: Traced) => number): number => percentile(list.map(pick), 50);
      figures[`${kind}: ADDED to Bound p50 (ms)`] = p50((t) => t.addedToBound);
      figures[`${kind}: ADDED to Bound p99 (ms)`] = percentile(
        list.map((t) => t.addedToBound),
        99,
      );
      figures[`${kind}: ADDED to Bound / plain write`] = p50((t) => t.addedToBound) / plain;
      figures[`${kind}: event and queue to first request p50 (ms)`] = p50((t) => t.queueAndCache);
      figures[`${kind}: requests before Bound p50`] = p50((t) => t.requests.length);
      figures[`${kind}: of them one after another p50`] = p50((t) => sequentialDepth(t.requests));
      figures[`${kind}: Bound written to seen on the watch p50 (ms)`] = p50((t) => t.delivery);
      const median = [...list].sort((a, b) => a.addedToBound - b.addedToBound)[
        Math.floor(list.length / 2)
      ]!;
      const added = median.requests[0]!.created - median.queueAndCache;
      process.stdout.write(
        [
          `\nThe median ${kind} lease (${median.addedToBound.toFixed(1)} ms ADDED to Bound):`,
          `  +${median.queueAndCache.toFixed(1).padStart(6)} ms  event, queue, cache reads`,
          ...median.requests.map(
            (r) =>
              `  +${(r.created - added).toFixed(1).padStart(6)} ms  ${describeRequest(r).padEnd(60)} ${((r.completed ?? r.answered ?? r.created) - r.created).toFixed(1)} ms`,
          ),
          `  +${median.addedToBound.toFixed(1).padStart(6)} ms  Bound seen on the watch`,
          '',
        ].join('\n'),
      );
    }
    const worst = Math.max(
      figures['apply: ADDED to Bound / plain write']!,
      figures['subjects: ADDED to Bound / plain write']!,
    );
    await reportBench({
      benchmark: 'bind-trace',
      description: `one lease at a time on warm spares, ${EACH} without and ${EACH} with spec.subjects, traced from ADDED to Bound on a watch`,
      figures,
      reference: { name: 'plain status write p50', value: plain },
      measured: { name: 'ADDED to Bound p50, the slower kind', value: worst * plain },
      target: 'p50 ≤ 5× one plain status write, for both kinds',
      targetMet: worst <= 5,
    });
  });
});
