import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, fetch } from 'undici';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import {
  hcpPool,
  lease,
  releaseLeasesAndPools,
  settleInstance,
} from '../support/fixtures/pool-fixtures.js';
import { coreApi } from '../support/client-node-clients.js';

/**
 * The operator's /metrics as a cluster admin scrapes it: over HTTPS, for tokens the apiserver
 * authenticates and authorizes (the metrics-reader ClusterRole), with the pool and lease figures
 * moving through a lease flow and staying right across a restart.
 */
const world = useWorld({ namespace: 'metrics', enabled: true });
const { ns } = world;
const READER_ROLE = path.join(projectRoot(), 'operator', 'deploy', 'metrics-reader-role.yaml');
const POOL = 'metered';
/** The self-signed certificate's peer is not known in advance: the test checks its name instead. */
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

let manager: Manager;
let readerToken: string;
let strangerToken: string;

const metricsPort = (): number => manager.endpointPorts[1]!;

async function scrape(token?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`https://127.0.0.1:${metricsPort()}/metrics`, {
    dispatcher: insecure,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, text: await response.text() };
}

/** The value of the sample of `name` whose labels include `labels`; undefined when absent. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) return Number(match[3]);
  }
  return undefined;
}

const pool = { namespace: '', pool: POOL };
const instances = (text: string, state: string): number | undefined =>
  sample(text, 'guestcluster_pool_instances', { ...pool, state });

/** Scrapes until the figures pass `check` (the gauges follow the operator's cache, which may lag a watch). */
async function scrapeUntil(description: string, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 20_000;
  let text = '';
  while (Date.now() < deadline) {
    text = (await scrape(readerToken)).text;
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `Timed out waiting for the metrics to show ${description}; last scrape:\n${text}`,
  );
}

const byState = (text: string): Record<string, number | undefined> =>
  Object.fromEntries(
    ['available', 'leased', 'provisioning', 'failed', 'terminating'].map((s) => [
      s,
      instances(text, s),
    ]),
  );

async function token(account: string): Promise<string> {
  await coreApi(ns).createNamespacedServiceAccount({
    namespace: ns.name,
    body: { metadata: { name: account } },
  });
  const review = await coreApi(ns).createNamespacedServiceAccountToken({
    name: account,
    namespace: ns.name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return review.status!.token!;
}

const start = (): Promise<Manager> =>
  world.startOperator({
    config: { secureMetrics: { hostname: `guestcluster-operator-metrics.${ns.name}.svc` } },
  });

beforeAll(async () => {
  pool.namespace = ns.name;
  await kubectl(['apply', '-f', READER_ROLE]);
  [readerToken, strangerToken] = await Promise.all([token('scraper'), token('stranger')]);
  await kubectl([
    'create',
    'clusterrolebinding',
    `${ns.name}-metrics-reader`,
    '--clusterrole=guestcluster-operator-metrics-reader',
    `--serviceaccount=${ns.name}:scraper`,
  ]);
  manager = await start();
});

afterAll(async () => {
  await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
  await manager?.stop();
  await kubectl(['delete', 'clusterrolebinding', `${ns.name}-metrics-reader`]);
  await insecure.close();
});

describe('secure metrics', () => {
  it('refuses a scrape without a token or with one the apiserver does not accept (401)', async () => {
    expect(await scrape()).toEqual({ status: 401, text: 'Unauthorized\n' });
    expect(await scrape('not-a-token')).toEqual({ status: 401, text: 'Unauthorized\n' });
  });

  it('refuses a user without get on /metrics (403) and answers one with the metrics-reader role', async () => {
    // A fixed text: the refused client learns neither its user name nor the apiserver's words.
    expect(await scrape(strangerToken)).toEqual({ status: 403, text: 'Forbidden\n' });
    const answered = await scrape(readerToken);
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('# TYPE guestcluster_pool_instances gauge');
  });

  it('serves a certificate for the metrics Service when none is mounted', async () => {
    const names = await new Promise<string | undefined>((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port: metricsPort(), rejectUnauthorized: false },
        () => {
          resolve(socket.getPeerCertificate().subjectaltname);
          socket.end();
        },
      );
      socket.once('error', reject);
    });
    expect(names).toBe(`DNS:guestcluster-operator-metrics.${ns.name}.svc`);
  });
});

describe('pool and lease metrics', () => {
  it("has every controller's reconcile and work-queue series before its first reconcile", async () => {
    const { text } = await scrape(readerToken);
    for (const controller of ['clusterpool', 'clusterlease']) {
      for (const result of ['success', 'requeue', 'conflict', 'error'])
        expect(sample(text, 'guestcluster_reconcile_total', { controller, result })).toBeDefined();
      expect(sample(text, 'guestcluster_workqueue_depth', { controller })).toBe(0);
      expect(sample(text, 'guestcluster_reconcile_errors_total', { controller })).toBe(0);
      expect(
        sample(text, 'guestcluster_workqueue_queue_duration_seconds_count', { controller }),
      ).toBeDefined();
    }
    // No pool yet: no pool series.
    expect(instances(text, 'available')).toBeUndefined();
  });

  it('follow a lease flow: provisioned, leased, waited for, released; right after a restart; gone with the pool', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, POOL, { maxSize: 2, warmSpares: 1 }));
    await waitForList(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      until: (items) => items.length === 1,
      description: 'the warm spare',
    });
    let text = await scrapeUntil(
      'one instance provisioning',
      (t) => instances(t, 'provisioning') === 1,
    );
    expect(byState(text)).toEqual({
      available: 0,
      leased: 0,
      provisioning: 1,
      failed: 0,
      terminating: 0,
    });
    expect(sample(text, 'guestcluster_pool_capacity', pool)).toBe(2);
    expect(sample(text, 'guestcluster_pool_pending_leases', pool)).toBe(0);

    await settleInstance(ns.api, ns.name, `${POOL}-0`);
    await scrapeUntil('the spare available', (t) => instances(t, 'available') === 1);

    // A lease the spare takes at once, then one that waits for the next instance.
    const bound = (name: string): Promise<ClusterLease | undefined> =>
      waitFor<ClusterLease>(ns.kubeConfig, {
        type: LEASES,
        namespace: ns.name,
        name,
        until: (l) => l?.status?.phase === 'Bound',
      });
    await ns.api.create(LEASES, lease(ns.name, 'first', POOL));
    await bound('first');
    await waitForList(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      until: (items) => items.length === 2,
      description: 'the pool to top its spare up',
    });
    await ns.api.create(LEASES, lease(ns.name, 'second', POOL));
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'second',
      until: (l) => l?.status?.phase === 'Pending',
    });
    text = await scrapeUntil(
      'a lease waiting',
      (t) => sample(t, 'guestcluster_pool_pending_leases', pool) === 1,
    );
    expect(byState(text)).toMatchObject({ leased: 1, provisioning: 1, available: 0 });
    await settleInstance(ns.api, ns.name, `${POOL}-1`);
    await bound('second');

    // The wait is observed once the Bound write has returned, which can be after its watch event.
    text = await scrapeUntil(
      "both leased, and the second lease's wait recorded",
      (t) =>
        instances(t, 'leased') === 2 &&
        sample(t, 'guestcluster_lease_wait_seconds_count', { ...pool, spare_ready: 'false' }) === 1,
    );
    expect(sample(text, 'guestcluster_pool_pending_leases', pool)).toBe(0);
    const wait = (spare: string, suffix: string): number | undefined =>
      sample(text, `guestcluster_lease_wait_seconds_${suffix}`, { ...pool, spare_ready: spare });
    expect(wait('true', 'count')).toBe(1);
    expect(wait('false', 'count')).toBe(1);
    // Hive's buckets; the waiting lease waited for its instance to be settled.
    expect(
      sample(text, 'guestcluster_lease_wait_seconds_bucket', {
        ...pool,
        spare_ready: 'false',
        le: '7200',
      }),
    ).toBe(1);
    expect(wait('false', 'sum')).toBeGreaterThan(0);

    // A new process counts from the cluster, not from events it saw.
    await manager.stop();
    manager = await start();
    text = await scrapeUntil('the figures after the restart', (t) => instances(t, 'leased') === 2);
    expect(byState(text)).toEqual({
      available: 0,
      leased: 2,
      provisioning: 0,
      failed: 0,
      terminating: 0,
    });

    // Released: the instances go (no instance controller here: at once), the pool tops up.
    await ns.api.delete(LEASES, 'first', ns.name);
    await ns.api.delete(LEASES, 'second', ns.name);
    // The pool tops its spare up again: the release and the new spare are two passes, and a
    // scrape can fall between them.
    await scrapeUntil(
      'no instance leased, and a spare provisioning',
      (t) => instances(t, 'leased') === 0 && instances(t, 'provisioning') === 1,
    );

    await ns.api.delete(POOLS, POOL, ns.name);
    text = await scrapeUntil(
      'the pool series gone',
      (t) => sample(t, 'guestcluster_pool_capacity', pool) === undefined,
    );
    expect(instances(text, 'leased')).toBeUndefined();
    expect(sample(text, 'guestcluster_pool_pending_leases', pool)).toBeUndefined();
  });
});
