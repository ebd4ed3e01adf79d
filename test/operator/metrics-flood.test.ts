import { randomBytes } from 'node:crypto';
import { readFile, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Pool } from 'undici';
import { parseAllDocuments } from 'yaml';
import type { LeaseObject } from '../../operator/runtime/leader-election.js';
import { LEASES } from '../../operator/runtime/leader-election.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { writeSecretFile } from '../../dev/control-plane/kubeconfig-file.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { ApiProxy } from '../support/api-proxy.js';
import { kubectl } from '../support/kubectl.js';
import { useWorld } from '../support/world.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';
import { coreApi } from '../support/client-node-clients.js';

/**
 * Anonymous traffic on the secure metrics endpoint: 20,000 requests with random bearer tokens
 * while a real scraper (a ServiceAccount bound to the metrics-reader ClusterRole) scrapes every
 * second. The operator is the real process, with leader election, talking to the apiserver as a
 * ServiceAccount of its own (so priority and fairness treats it as it treats the installed
 * operator) through a proxy that counts its TokenReviews: the apiserver's side of the bound
 * (docs/monitoring.md#what-a-scrape-costs).
 */
const { ns } = useWorld({ namespace: 'metrics-flood', enabled: true });
const DEPLOY = path.join(projectRoot(), 'operator', 'deploy');
const LEASE_NAME = '28494864.opdev.io';
/** The operator's default election timings: a standby takes over after this long without a renewal. */
const LEASE_DURATION_MS = 15_000;
const FLOOD_REQUESTS = 20_000;
const FLOOD_CONCURRENCY = 64;
/** The stated bound: a burst of 10 reviews, then 5 a second, and one per reader and allowed TTL. */
const REVIEW_BURST = 10;
const REVIEWS_PER_SECOND = 5;
const TOKEN_REVIEWS = 'POST /apis/authentication.k8s.io/v1/tokenreviews';

let proxy: ApiProxy;
let operator: OperatorProcess;
let readerToken: string;
let operatorStartedAt: number;
const bindings: string[] = [];

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

async function bindClusterRole(role: string, account: string): Promise<void> {
  const name = `${ns.name}-${account}`;
  await kubectl([
    'create',
    'clusterrolebinding',
    name,
    `--clusterrole=${role}`,
    `--serviceaccount=${ns.name}:${account}`,
  ]);
  bindings.push(name);
}

/** The ClusterRoles of operator/deploy, without their bindings to the installed accounts. */
async function applyClusterRoles(...files: string[]): Promise<void> {
  for (const file of files) {
    const documents = parseAllDocuments(await readFile(path.join(DEPLOY, file), 'utf8'));
    const roles = documents.filter((d) => d.get('kind') === 'ClusterRole').map(String);
    await kubectl(['apply', '-f', '-'], roles.join('---\n'));
  }
}

const holder = (lease: LeaseObject | undefined): string => lease?.spec?.holderIdentity ?? '';

beforeAll(async () => {
  proxy = await ApiProxy.start();
  await applyClusterRoles('manager-role.yaml', 'metrics-reader-role.yaml');
  const [operatorToken, scraperToken] = await Promise.all([token('operator'), token('scraper')]);
  readerToken = scraperToken;
  await bindClusterRole('guestcluster-operator-manager-role', 'operator');
  await bindClusterRole('guestcluster-operator-metrics-reader', 'scraper');
  // The leader-election Role of operator/deploy, in the namespace that stands for the operator's.
  await kubectl([
    '-n',
    ns.name,
    'create',
    'role',
    'leader-election',
    '--verb=get,create,update',
    '--resource=leases.coordination.k8s.io',
  ]);
  await kubectl([
    '-n',
    ns.name,
    'create',
    'rolebinding',
    'leader-election',
    '--role=leader-election',
    `--serviceaccount=${ns.name}:operator`,
  ]);
  const kubeconfig = path.join(await mkdtemp(path.join(os.tmpdir(), 'gc-flood-')), 'config');
  await writeSecretFile(kubeconfig, proxy.kubeconfig(operatorToken));
  operatorStartedAt = Date.now();
  operator = await startOperatorProcess({
    identity: 'op-flood',
    namespace: ns.name,
    args: ['--metrics-secure=true', '--leader-elect'],
    env: { KUBECONFIG: kubeconfig },
  });
  await operator.logged('Serving /metrics over HTTPS');
  await waitFor<LeaseObject>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name: LEASE_NAME,
    until: (lease) => holder(lease).startsWith('op-flood_'),
    description: 'the operator to hold the leader-election lease',
  });
});

afterAll(async () => {
  if (operator && operator.child.exitCode === null && operator.child.signalCode === null) {
    operator.child.kill('SIGTERM');
    await operator.exited;
  }
  await proxy?.stop();
  for (const name of bindings) await kubectl(['delete', 'clusterrolebinding', name]);
});

/** One connection pool for the flood: HTTPS to the operator, its self-signed certificate accepted. */
function metricsPool(connections: number): Pool {
  return new Pool(`https://127.0.0.1:${operator.metricsPort}`, {
    connections,
    connect: { rejectUnauthorized: false },
  });
}

async function get(pool: Pool, bearer: string): Promise<{ status: number; body: string }> {
  const response = await pool.request({
    method: 'GET',
    path: '/metrics',
    headers: { authorization: `Bearer ${bearer}` },
  });
  return { status: response.statusCode, body: await response.body.text() };
}

/** Sends `total` requests, each with a token of its own, `concurrency` at a time. */
async function flood(pool: Pool, total: number, concurrency: number): Promise<Map<string, number>> {
  const answers = new Map<string, number>();
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < total) {
      sent++;
      const { status, body } = await get(pool, randomBytes(24).toString('base64url'));
      const answer = `${status} ${body.trim()}`;
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

describe('secure metrics under a flood of random tokens', () => {
  it('costs a bounded number of TokenReviews, serves the scraper throughout, and keeps the leader', async () => {
    const scraperPool = metricsPool(1);
    const floodPool = metricsPool(32);
    const scrapes: number[] = [(await get(scraperPool, readerToken)).status];

    // Every change of the election Lease while the flood lasts, when the test saw it.
    let flooding = true;
    const renewals: { at: number; holder: string; transitions: number }[] = [];
    const leaseWatch = waitFor<LeaseObject>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: LEASE_NAME,
      until: (lease) => {
        renewals.push({
          at: Date.now(),
          holder: holder(lease),
          transitions: lease?.spec?.leaseTransitions ?? 0,
        });
        return !flooding;
      },
      timeoutMs: 150_000,
      description: 'a renewal of the lease after the flood',
    });
    const scraper = (async (): Promise<void> => {
      while (flooding) {
        await delay(1000);
        scrapes.push((await get(scraperPool, readerToken)).status);
      }
    })();

    const floodStart = Date.now();
    const answers = await flood(floodPool, FLOOD_REQUESTS, FLOOD_CONCURRENCY);
    const floodEnd = Date.now();
    flooding = false;
    await scraper;
    await leaseWatch;
    await Promise.all([scraperPool.close(), floodPool.close()]);

    // Counted where they arrive, on the apiserver's side of the operator.
    const reviews = proxy.requests.filter((r) =>
      `${r.method} ${r.path}`.startsWith(TOKEN_REVIEWS),
    ).length;
    const seconds = Math.ceil((Date.now() - operatorStartedAt) / 1000);
    const bound = REVIEW_BURST + REVIEWS_PER_SECOND * seconds + 2;
    expect(reviews).toBeLessThanOrEqual(bound);

    // Every flood request was refused with a fixed text: unauthenticated, or over the limit.
    expect(Object.fromEntries(answers)).toEqual({
      '401 Unauthorized': expect.any(Number),
      '429 Too Many Requests': expect.any(Number),
    });
    expect([...answers.values()].reduce((a, b) => a + b, 0)).toBe(FLOOD_REQUESTS);

    // The real scraper was served at every scrape.
    expect(scrapes.length).toBeGreaterThan(1);
    expect(scrapes.filter((status) => status !== 200)).toEqual([]);

    // The leader kept its lease: the same holder, no transition, and never a lease duration
    // without a renewal (after which a standby would take over).
    expect(operator.child.exitCode).toBeNull();
    expect(new Set(renewals.map((r) => r.holder))).toEqual(new Set([renewals[0]!.holder]));
    expect(renewals[0]!.holder).toMatch(/^op-flood_/);
    expect(new Set(renewals.map((r) => r.transitions)).size).toBe(1);
    const times = [floodStart, ...renewals.map((r) => r.at).filter((at) => at > floodStart)];
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    expect(Math.max(...gaps)).toBeLessThan(LEASE_DURATION_MS);
    expect(renewals.at(-1)!.at).toBeGreaterThan(floodEnd);
  });
});
