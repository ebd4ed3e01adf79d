import { setTimeout as delay } from 'node:timers/promises';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES } from '../../client/api/resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/kube/api-error.js';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import type { InvariantChecker } from './invariant-checker.js';
import type { SoakGitHub } from './soak-github.js';
import { SOAK_REPOSITORY } from './soak-github.js';
import type { SoakObserver } from './soak-observer.js';
import type { PlannedLease } from './soak-schedule.js';
import { SOAK } from './soak-seed.js';

/** How a lease of the run ended, as the report counts them. */
export type LeaseOutcome =
  | 'released'
  | 'expired'
  | 'released-by-github'
  | 'github-late'
  | 'unserved'
  | 'failed'
  | 'cancelled'
  | 'not-created'
  | 'vanished-unbound'
  | 'release-stuck';

export interface LeaseRecord {
  name: string;
  plan: PlannedLease;
  /** Whether it was made (one whose time came after the run's end never is). */
  created?: boolean;
  outcome?: LeaseOutcome;
  /** From creation to Bound. */
  waitMs?: number;
  /** The reason its conditions gave, when it was not served. */
  reason?: string;
}

/** A CI job gives up on a lease that has not bound in this long (the Action's default is longer). */
const BIND_DEADLINE_MS = 5 * 60_000;
/** How long past its expiresAt a TTL lease may live before the TTL counts as not enforced. */
export const TTL_GRACE_MS = 2 * 60_000;
/** How long past its job's completion the operator may take to release a lease: poll, backoff. */
const GITHUB_GRACE_MS = 3 * 60_000;
/** A deleted lease's release finalizer has this long to finish. */
const RELEASE_DEADLINE_MS = 2 * 60_000;
/** API calls are retried this long: through an apiserver restart. */
const API_RETRY_MS = 60_000;
const RETRY_PAUSE_MS = 1000;
/** How long the soak's watch may take to show a lease it created. */
const APPEAR_MS = 60_000;

const bound = (lease: ClusterLease | undefined): boolean =>
  !lease || !!lease.status?.instanceRef?.uid || lease.status?.phase === 'Failed';

async function retrying<T>(what: () => Promise<T>, deadlineMs = API_RETRY_MS): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await what();
    } catch (error) {
      if (Date.now() > until) throw error;
      await delay(RETRY_PAUSE_MS);
    }
  }
}

/**
 * Plays CI against the pools: creates each planned lease at its time, waits for it to bind (a
 * watch), holds it, and ends it the way its plan says; some are left to their TTL, some to the
 * operator's GitHub reclaim. Once the run's time is up (`draining`), leases still waiting are
 * given up, as cancelled jobs would.
 */
export class LoadGenerator {
  readonly records: LeaseRecord[] = [];
  private readonly drain = new AbortController();

  constructor(
    private readonly parts: {
      api: ApiClient;
      observer: SoakObserver;
      github: SoakGitHub;
      checker: InvariantChecker;
      log: (line: string) => void;
    },
    private readonly startedAt: number,
  ) {}

  /** Runs every planned lease; resolves once each has ended. */
  async run(plan: readonly PlannedLease[]): Promise<void> {
    await Promise.all(plan.map((lease) => this.serve(lease)));
  }

  /** No more waiting for leases that have not bound (the run's time is up). */
  startDraining(): void {
    this.drain.abort();
  }

  private async serve(plan: PlannedLease): Promise<void> {
    // Not the pools' instance names (`<pool>-…`): a lease's `<lease>-kubeconfig` would be theirs.
    const record: LeaseRecord = { name: `job-${plan.index}-${plan.topology}`, plan };
    this.records.push(record);
    const wait = plan.atMs - (Date.now() - this.startedAt);
    if (wait > 0)
      await delay(wait, undefined, { signal: this.drain.signal }).catch(() => undefined);
    if (this.drain.signal.aborted) return void (record.outcome = 'cancelled');
    const created = await this.create(record).catch((error: Error) => {
      this.parts.log(`${record.name}: not created: ${error.message}`);
      return undefined;
    });
    if (!created) return void (record.outcome = 'not-created');
    record.created = true;
    record.outcome = await this.follow(record, created);
    this.parts.log(
      `${record.name}: ${record.outcome}${record.reason ? ` (${record.reason})` : ''}`,
    );
  }

  private async follow(record: LeaseRecord, created: ClusterLease): Promise<LeaseOutcome> {
    const { observer } = this.parts;
    const createdAt = Date.now();
    // The watch may deliver the new lease a moment after the create's answer.
    await observer.whenLease(
      record.name,
      (l) => l?.metadata?.uid === created.metadata?.uid,
      APPEAR_MS,
    );
    const served = await Promise.race([
      observer.whenLease(record.name, bound, BIND_DEADLINE_MS),
      new Promise<false>((resolve) =>
        this.drain.signal.addEventListener('abort', () => resolve(false)),
      ),
    ]);
    const lease = observer.lease(record.name);
    if (!served || !lease?.status?.instanceRef?.uid) return this.unserved(record, created, served);
    record.waitMs = Date.now() - createdAt;
    if (record.plan.end === 'ttl') return this.expire(record, lease, created);
    await delay(record.plan.holdMs);
    if (record.plan.end === 'github') return this.completeJob(record, created);
    return (await this.release(record, created)) ? 'released' : 'release-stuck';
  }

  /** A lease that did not bind: failed, given up at its deadline or at the run's end, or gone. */
  private async unserved(
    record: LeaseRecord,
    created: ClusterLease,
    ended: boolean,
  ): Promise<LeaseOutcome> {
    const lease = this.parts.observer.lease(record.name);
    if (!lease) return ended ? 'vanished-unbound' : 'cancelled';
    record.reason = waitingReason(lease);
    const outcome: LeaseOutcome =
      lease.status?.phase === 'Failed'
        ? 'failed'
        : this.drain.signal.aborted
          ? 'cancelled'
          : 'unserved';
    return (await this.release(record, created)) ? outcome : 'release-stuck';
  }

  private async expire(
    record: LeaseRecord,
    lease: ClusterLease,
    created: ClusterLease,
  ): Promise<LeaseOutcome> {
    const expiresAt = Date.parse(lease.status?.expiresAt ?? '') || Date.now() + record.plan.holdMs;
    const deadline = expiresAt + TTL_GRACE_MS - Date.now();
    if (await this.parts.observer.whenLease(record.name, (l) => !l, deadline)) return 'expired';
    this.parts.checker.violate(
      'ttl-not-enforced',
      record.name,
      Date.now(),
      `ClusterLease ${record.name} outlived its expiresAt ${lease.status?.expiresAt} by more than ${TTL_GRACE_MS / 1000}s`,
    );
    return (await this.release(record, created)) ? 'released' : 'release-stuck';
  }

  private async completeJob(record: LeaseRecord, created: ClusterLease): Promise<LeaseOutcome> {
    this.parts.github.completeRun(runIdOf(record.plan.index));
    if (await this.parts.observer.whenLease(record.name, (l) => !l, GITHUB_GRACE_MS))
      return 'released-by-github';
    // The job's own post step releases it, as the Action's does.
    return (await this.release(record, created)) ? 'github-late' : 'release-stuck';
  }

  private async create(record: LeaseRecord): Promise<ClusterLease> {
    const { plan } = record;
    if (plan.end === 'github') this.parts.github.startRun(runIdOf(plan.index));
    const lease: ClusterLease = {
      apiVersion: LEASES.apiVersion,
      kind: 'ClusterLease',
      metadata: {
        name: record.name,
        namespace: SOAK.namespace,
        ...(plan.end === 'github'
          ? {
              annotations: {
                [RUN_ANNOTATIONS.repository]: SOAK_REPOSITORY,
                [RUN_ANNOTATIONS.runId]: String(runIdOf(plan.index)),
                [RUN_ANNOTATIONS.runAttempt]: '1',
              },
            }
          : {}),
      },
      spec: {
        poolRef: { name: SOAK.pools[plan.topology] },
        ttl: plan.end === 'ttl' ? `${plan.holdMs / 1000}s` : '1h',
        requestedBy: 'the chaos soak',
      },
    };
    return retrying(async () => {
      try {
        return await this.parts.api.create(LEASES, lease);
      } catch (error) {
        // An earlier attempt made it before its answer was lost (an apiserver restart).
        if (isAlreadyExists(error))
          return this.parts.api.get<ClusterLease>(LEASES, record.name, SOAK.namespace);
        throw error;
      }
    });
  }

  /** Deletes the lease (its UID named) and waits for its release finalizer; false past the deadline. */
  private async release(record: LeaseRecord, created: ClusterLease): Promise<boolean> {
    await retrying(() =>
      this.parts.api
        .delete(LEASES, record.name, SOAK.namespace, { uid: created.metadata!.uid! })
        .catch((error: unknown) => {
          // 409: the precondition failed, the lease of that name is another one now.
          if (!isNotFound(error) && !isConflict(error)) throw error;
        }),
    );
    return this.parts.observer.whenLease(record.name, (l) => !l, RELEASE_DEADLINE_MS);
  }
}

/** The run a lease of the plan stands for: one run per lease. */
function runIdOf(index: number): number {
  return 1000 + index;
}

function waitingReason(lease: ClusterLease): string | undefined {
  const conditions = lease.status?.conditions ?? [];
  return (
    conditions.find((c) => c.type === 'Ready' && c.status === 'False')?.reason ??
    conditions.find((c) => c.type === 'Bound' && c.status === 'False')?.reason
  );
}
