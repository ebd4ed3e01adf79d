import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES, POOLS } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import { splitKey } from '../../kube/objects.js';
import type { CacheIndex } from '../../runtime/cache.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/logger.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Lease } from '../binding/binding-model.js';
import { writeLeaseStatus } from '../clusterlease/lease-status.js';
import { GitHubConnection } from './github-connection.js';
import { GitHubGate } from './github-gate.js';
import type { GitHubReclaimSettings } from './github-settings.js';
import { overRunCap } from './held-back.js';
import { judgeJobs } from './job-verdict.js';
import type { LeaseQuestion } from './lease-question.js';
import { leaseQuestion } from './lease-question.js';
import type { RunVerdict } from './reclaim-reasons.js';
import { RUN_COMPLETED_CONDITION, RUN_COMPLETED_EVENT } from './reclaim-reasons.js';
import type { RunState } from './run-answers.js';
import { RunAnswers } from './run-answers.js';
import { admittedRuns } from './run-cap.js';

export const RECLAIM_CONTROLLER = 'cirun';

/** What the reclaim controller takes from the operator's configuration. */
export interface ReclaimSettings {
  github: GitHubReclaimSettings;
  /** Where the credentials Secret lives. */
  operatorNamespace: string;
}

type Asked = Extract<LeaseQuestion, { kind: 'ask' }>;

/**
 * Releases a lease once GitHub says the CI job that made it has completed, also when the runner
 * died and the Action's post step never ran (ADR 0024). Each bound lease that names its run is
 * asked about every poll interval; the leases of one run share one answer (RunAnswers), which
 * releases a lease only if it was fetched after the lease was bound. A namespace's leases are
 * asked about for a limited number of runs and requests (ADR 0034). Only a completed job
 * releases; every other answer is written to the RunCompleted condition. The release is the
 * TTL's: the lease is deleted, and its finalizer frees the cluster.
 */
export class ReclaimController {
  private readonly answers: RunAnswers;
  /** Bound leases that name a run, by namespace: what a namespace's run cap counts. */
  private readonly bound: CacheIndex<Stored<ClusterLease>>;
  /**
   * The UID of each lease this controller released, by key, until its cache no longer holds the
   * lease: a cache lags, and a pass over a lease it still shows would ask GitHub about a run whose
   * cluster was given back. A UID is never reused, so a lease of that UID is a deleted one.
   */
  private readonly released = new Map<string, string>();

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: ReclaimSettings,
    logger: Logger,
    /** Queues a lease's key: a request about its run was answered. */
    wake: (key: string) => void = () => undefined,
  ) {
    const { github } = settings;
    const connection = new GitHubConnection(
      github,
      settings.operatorNamespace,
      ports.client,
      ports.clock,
      logger,
    );
    this.answers = new RunAnswers(
      connection,
      new GitHubGate(github.backoff),
      ports.clock,
      github,
      wake,
    );
    this.bound = ports.cache.indexBy<ClusterLease>(LEASES, (lease) =>
      lease.metadata.annotations?.[RUN_ANNOTATIONS.runId] !== undefined && lease.status?.boundTime
        ? [lease.metadata.namespace ?? '']
        : [],
    );
  }

  registration(): ControllerRegistration {
    return {
      name: RECLAIM_CONTROLLER,
      forType: LEASES,
      reconcile: (key) => this.reconcile(key),
    };
  }

  /** Resolves once no request to GitHub is under way (for tests that reconcile by hand). */
  idle(): Promise<void> {
    return this.answers.idle();
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const { namespace = '', name } = splitKey(key);
    const lease = (await this.ports.cache.read<ClusterLease>(LEASES)).get(name, namespace);
    // Released here, and still in the cache: nothing is left to ask about.
    if (lease && this.released.get(key) === lease.metadata.uid) return {};
    this.released.delete(key);
    if (!lease) return {};
    const pools = await this.ports.cache.read(POOLS);
    const poolExists = (ns: string, pool: string): boolean => !!pools.get(pool, ns);
    const question = leaseQuestion(lease, this.settings.github, poolExists);
    if (question.kind === 'none') return {};
    if (question.kind === 'tell') {
      await this.tell(lease, question.verdict);
      return {};
    }
    const now = this.ports.clock.now();
    const capped = this.overCap(namespace, question, poolExists);
    if (capped) {
      const retryAtMs = now + this.settings.github.pollIntervalMs;
      await this.tell(lease, overRunCap(question.run, namespace, capped, retryAtMs));
      return { requeueAt: retryAtMs };
    }
    const state = this.stateFor(question, { namespace, leaseKey: key });
    if (state.kind === 'asking') return { requeueAt: state.retryAtMs };
    const verdict =
      state.kind === 'jobs' ? judgeJobs(question.run, state.jobs, state.complete) : state;
    const told = await this.tell(lease, verdict);
    if (verdict.status === 'True') {
      await this.ports.events.record(
        told,
        'Normal',
        RUN_COMPLETED_EVENT,
        `GitHub reports that ${verdict.message}; releasing the cluster`,
      );
      // Unchanged since it was judged: a lease held or kept a moment ago is not released.
      await this.ports.client.deleteIfExists(LEASES, told, { unchanged: true });
      this.released.set(key, told.metadata.uid);
      return {};
    }
    return { requeueAt: state.retryAtMs };
  }

  /**
   * The run's state for the lease. Jobs listed before the lease was bound can say "all completed"
   * of jobs that did not include its own (a matrix leg that starts once others finish): such an
   * answer that would release it is asked again.
   */
  private stateFor(question: Asked, asker: { namespace: string; leaseKey: string }): RunState {
    const state = this.answers.state(question.run, asker, question.answersFrom);
    if (state.kind !== 'jobs' || state.fetchedAtMs >= question.answersFrom) return state;
    if (judgeJobs(question.run, state.jobs, state.complete).status !== 'True') return state;
    return this.answers.state(question.run, asker, question.answersFrom, true);
  }

  /** The run cap, when the lease's run is over it: how many runs the namespace names, and the cap. */
  private overCap(
    namespace: string,
    question: Asked,
    poolExists: (namespace: string, pool: string) => boolean,
  ): { distinct: number; cap: number } | undefined {
    const cap = this.settings.github.maxRunsPerNamespace;
    const asking = this.bound.get(namespace).flatMap((lease) => {
      const other = leaseQuestion(lease, this.settings.github, poolExists);
      return other.kind === 'ask'
        ? [{ runKey: other.runKey, createdMs: Date.parse(lease.metadata.creationTimestamp ?? '') }]
        : [];
    });
    const { admitted, distinct } = admittedRuns(asking, cap);
    return admitted.has(question.runKey) ? undefined : { distinct, cap };
  }

  /** Writes the RunCompleted condition (only when it changed), with a Warning Event when something to act on is new. */
  private async tell(lease: Lease, verdict: RunVerdict): Promise<Lease> {
    const { status, reason, message } = verdict;
    const previous = findCondition(lease.status?.conditions, RUN_COMPLETED_CONDITION);
    const conditions = setCondition(
      lease.status?.conditions,
      {
        type: RUN_COMPLETED_CONDITION,
        status,
        reason,
        message,
        observedGeneration: lease.metadata.generation,
      },
      this.ports.clock.now(),
    );
    const told = await writeLeaseStatus(this.ports, lease, { ...lease.status, conditions });
    if (verdict.warn && previous?.reason !== reason)
      await this.ports.events.record(told, 'Warning', reason, message);
    return told;
  }
}
