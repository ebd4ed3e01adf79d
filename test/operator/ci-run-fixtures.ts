import { randomUUID } from 'node:crypto';
import { expect } from '@jest/globals';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import type { Condition } from '../../operator/api/conditions.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS, SECRETS } from '../../client/api/resources.js';
import type { GitHubReclaimSettings } from '../../operator/controllers/cirun/github-settings.js';
import type { ApiClient, ClusterAccess } from '../../client/kube/api-client.js';
import { isNotFound } from '../../client/kube/api-error.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { World } from '../support/world.js';
import type { GitHubStandIn } from '../support/github-stand-in.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import type { TestClock } from '../support/fixtures/test-clock.js';

export const MINUTE = 60_000;
export const POLL = 10 * MINUTE;
/** Long enough that only the test clock, never real time, reaches a poll or a backoff. */
export const BACKOFF = { baseMs: 30 * MINUTE, maxMs: 240 * MINUTE, jitter: 0 };
export const HOLD = 'test.guestcluster.opdev.io/hold';
export const REPO = 'acme/app';
/** The pool the leases are of; no pool controller runs here, so it stays as it is. */
export const POOL = 'reclaim-pool';

/** A lease's GitHub run, as the Action's annotations name it. */
export interface RunOf {
  repository?: string;
  runId: number;
  attempt?: number;
  jobId?: number;
}

/**
 * The world of a reclaim test: its namespace with a pool, the GitHub stand-in, a token Secret,
 * and the operator running the cirun controller alone, on the test clock. The test plays the
 * lease controller's part: it binds leases (bind, createBound) as the binding would.
 */
export class ReclaimWorld {
  readonly clock: TestClock;
  standIn!: GitHubStandIn;
  private manager: Manager | undefined;
  private probes = 0;
  /** Who creates the leases: the admin, or a tenant (asTenant). */
  private writer: ApiClient | undefined;

  constructor(
    private readonly world: World,
    clock: TestClock,
  ) {
    this.clock = clock;
  }

  get ns(): World['ns'] {
    return this.world.ns;
  }

  /** The settings the operator asks GitHub with: the stand-in, with a token, and `overrides`. */
  settings(
    credentialsSecret: string,
    overrides: Partial<GitHubReclaimSettings> = {},
  ): GitHubReclaimSettings {
    return {
      credentialsSecret,
      apiUrl: this.standIn.url,
      allowedRepositories: ['acme/*'],
      caCertificates: this.standIn.ca,
      pollIntervalMs: POLL,
      backoff: BACKOFF,
      maxRunsPerNamespace: 20,
      requestsPerNamespacePerHour: 1000,
      proxy: { httpsProxy: '', httpProxy: '', noProxy: '' },
      ...overrides,
    };
  }

  async setUp(standIn: GitHubStandIn): Promise<void> {
    this.standIn = standIn;
    standIn.acceptToken('ghp_operator');
    await this.ns.api.create(
      SECRETS,
      secret(this.ns.name, 'github-token', { token: 'ghp_operator' }),
    );
    await this.ns.api.create(POOLS, hcpPool(this.ns.name, POOL));
  }

  /**
   * (Re)starts the operator with these settings. One worker: keys are reconciled in the order
   * they are queued, so a probe lease's pass tells that every pass queued before it is done (see
   * settled()). The test operator's watch backoff is short: jumps of the test clock look like a
   * silent watch to the informer's watchdog, and the watch restarts at once. `access`: how the
   * operator reaches the apiserver, if not directly (a proxy that delays its watches, say).
   */
  async start(github: GitHubReclaimSettings, access?: ClusterAccess): Promise<void> {
    await this.manager?.stop();
    this.manager = await this.world.startOperator({
      clock: this.clock,
      controllers: ['cirun'],
      config: { workers: { cirun: 1 }, operatorNamespace: this.ns.name, github },
      ...(access ? { access } : {}),
    });
  }

  async stop(): Promise<void> {
    await this.manager?.stop();
  }

  runLease(name: string, run: RunOf, finalizers: string[] = [], pool = POOL): ClusterLease {
    const base = lease(this.ns.name, name, pool);
    base.metadata = {
      ...base.metadata,
      finalizers,
      annotations: {
        [RUN_ANNOTATIONS.repository]: run.repository ?? REPO,
        [RUN_ANNOTATIONS.runId]: String(run.runId),
        [RUN_ANNOTATIONS.runAttempt]: String(run.attempt ?? 1),
        [RUN_ANNOTATIONS.job]: 'e2e',
        ...(run.jobId ? { [RUN_ANNOTATIONS.jobId]: String(run.jobId) } : {}),
      },
    };
    return base;
  }

  /**
   * Binds the lease to an instance of its pool at `at` (now, by the operator's clock), in whole
   * seconds as the binding writes boundTime.
   */
  async bind(name: string, at = this.clock.now()): Promise<void> {
    await this.ns.api.patch(
      LEASES,
      { name, namespace: this.ns.name, subresource: 'status' },
      {
        status: {
          phase: 'Bound',
          instanceRef: { name: `${POOL}-${name}`, uid: randomUUID() },
          topology: 'hcp',
          boundTime: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      },
    );
  }

  /** Leases are created by this client from now on: a tenant's, annotations and all. */
  asTenant(api: ApiClient): void {
    this.writer = api;
  }

  async create(object: ClusterLease): Promise<void> {
    await (this.writer ?? this.ns.api).create(LEASES, object);
  }

  /** Creates the lease and binds it, as a lease of an Action's job is once it has its cluster. */
  async createBound(object: ClusterLease): Promise<void> {
    await this.create(object);
    await this.bind(object.metadata!.name!);
  }

  /** Waits for the lease's RunCompleted condition to have `reason` (and `message`, when given). */
  async runCondition(
    name: string,
    reason: string,
    message?: string,
  ): Promise<Condition | undefined> {
    const found = await waitFor<ClusterLease>(this.ns.kubeConfig, {
      type: LEASES,
      namespace: this.ns.name,
      name,
      until: (l) => {
        const condition = findCondition(l?.status?.conditions, 'RunCompleted');
        return condition?.reason === reason && (!message || condition.message.includes(message));
      },
      description: `RunCompleted ${reason} ${message ?? ''} on ${name}`,
    });
    return findCondition(found?.status?.conditions, 'RunCompleted');
  }

  /** Waits for the lease to have a RunCompleted condition, whatever it says, and returns the lease. */
  async told(name: string): Promise<ClusterLease> {
    const found = await waitFor<ClusterLease>(this.ns.kubeConfig, {
      type: LEASES,
      namespace: this.ns.name,
      name,
      until: (l) => !!findCondition(l?.status?.conditions, 'RunCompleted'),
      description: `a RunCompleted condition on ${name}`,
    });
    return found!;
  }

  async gone(name: string): Promise<void> {
    await waitFor(this.ns.kubeConfig, {
      type: LEASES,
      namespace: this.ns.name,
      name,
      until: (l) => l === undefined,
      description: `lease ${name} to be released`,
    });
  }

  async exists(name: string): Promise<boolean> {
    const found = await this.ns.api.get<ClusterLease>(LEASES, name, this.ns.name);
    return !found.metadata?.deletionTimestamp;
  }

  /** Deletes the lease (once more, if it was), dropping the test's hold finalizer. */
  async remove(name: string): Promise<void> {
    await this.ns.api.patch(
      LEASES,
      { name, namespace: this.ns.name },
      { metadata: { finalizers: null } },
    );
    await this.ns.api.delete(LEASES, name, this.ns.name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await this.gone(name);
  }

  /**
   * Waits until every pass queued so far is done: a lease naming a repository outside the allowed
   * list is answered without GitHub, after the keys queued before it (one worker, in order).
   */
  async settled(): Promise<void> {
    const name = `probe-${++this.probes}`;
    await this.ns.api.create(
      LEASES,
      this.runLease(name, { repository: 'elsewhere/other', runId: 1 }),
    );
    await this.runCondition(name, 'RepositoryNotAllowed');
    await this.ns.api.delete(LEASES, name, this.ns.name);
  }

  /**
   * Waits until the lease's condition gives `reason` for the run's `count`th request, and returns
   * how long after that request the condition says the next one goes out, and when.
   */
  async nextRequest(
    name: string,
    runId: number,
    count: number,
    reason: string,
  ): Promise<{ afterMs: number; atMs: number }> {
    const answered = (await this.standIn.requestsFor(REPO, runId, count))[count - 1]!;
    const announced = (l?: ClusterLease): number => {
      const condition = findCondition(l?.status?.conditions, 'RunCompleted');
      const at = / at (\S+Z)$/.exec(condition?.message ?? '')?.[1];
      return condition?.reason === reason && at ? Date.parse(at) : NaN;
    };
    const told = await waitFor<ClusterLease>(this.ns.kubeConfig, {
      type: LEASES,
      namespace: this.ns.name,
      name,
      until: (l) => announced(l) > answered.atMs,
      description: `${name}'s RunCompleted ${reason} after request ${count}`,
    });
    return { afterMs: announced(told) - answered.atMs, atMs: announced(told) };
  }

  /**
   * After the run's `count`th request, the lease says `reason` and that the next request goes out
   * `waitMs` later (give or take two seconds of the test's own time); a minute before that, GitHub
   * has been asked nothing more and the lease is still there. Returns when the next request is due.
   */
  async waitsBeforeAsking(
    name: string,
    runId: number,
    count: number,
    reason: string,
    waitMs: number,
  ): Promise<number> {
    const next = await this.nextRequest(name, runId, count, reason);
    expect(next.afterMs).toBeGreaterThanOrEqual(waitMs);
    expect(next.afterMs).toBeLessThan(waitMs + 2000);
    this.advanceTo(next.atMs - MINUTE);
    await this.settled();
    expect(this.standIn.jobRequests(REPO, runId)).toHaveLength(count);
    expect(await this.exists(name)).toBe(true);
    return next.atMs;
  }

  /** Moves the test clock to `at` (epoch ms). */
  advanceTo(at: number): void {
    this.clock.advance(at - this.clock.now());
  }

  /**
   * Moves the test clock just past `at`, an announced time of the next request. The operator's
   * timer for it counts from the moment it was set, a moment of real time after `at` was
   * computed, so it is due a little after `at`: advancing to `at` exactly may leave it unfired.
   */
  advancePast(at: number): void {
    this.advanceTo(at + 1000);
  }
}

export function secret(namespace: string, name: string, values: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  };
}
