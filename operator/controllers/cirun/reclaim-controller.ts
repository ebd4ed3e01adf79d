import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { ANNOTATION_KEEP_AFTER_JOB } from '../../../contracts/run-annotations.js';
import { setCondition } from '../../api/conditions.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import { splitKey } from '../../kube/objects.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import type { Logger } from '../../runtime/logger.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Lease } from '../binding/binding-model.js';
import { writeLeaseStatus } from '../clusterlease/lease-status.js';
import { deleteLease } from '../clusterlease/lease-ttl.js';
import { GitHubConnection } from './github-connection.js';
import { GitHubGate } from './github-gate.js';
import type { GitHubReclaimSettings } from './github-settings.js';
import { GITHUB_SETTINGS, repositoryAllowed } from './github-settings.js';
import { judgeJobs } from './job-verdict.js';
import { leaseRun } from './lease-run.js';
import type { RunVerdict } from './reclaim-reasons.js';
import { RUN_COMPLETED_CONDITION, RUN_COMPLETED_EVENT, RunReason } from './reclaim-reasons.js';
import { RunAnswers } from './run-answers.js';

export const RECLAIM_CONTROLLER = 'cirun';

/** What the reclaim controller takes from the operator's configuration. */
export interface ReclaimSettings {
  github: GitHubReclaimSettings;
  /** Where the credentials Secret lives. */
  operatorNamespace: string;
}

/**
 * Releases a lease once GitHub says the CI job that made it has completed, also when the runner
 * died and the Action's post step never ran (ADR 0024). Each lease that names its run is asked
 * about every poll interval; the leases of one run share one answer (RunAnswers). Only a
 * completed job releases; every other answer is written to the RunCompleted condition. The
 * release is the TTL's: the lease is deleted, and its finalizer frees the cluster.
 */
export class ReclaimController {
  private readonly answers: RunAnswers;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: ReclaimSettings,
    logger: Logger,
  ) {
    const { github } = settings;
    const connection = new GitHubConnection(
      github,
      settings.operatorNamespace,
      ports.client,
      ports.clock,
      logger,
    );
    const gate = new GitHubGate(github.backoff);
    this.answers = new RunAnswers(
      connection,
      gate,
      ports.clock,
      github.pollIntervalMs,
      github.backoff,
    );
  }

  registration(): ControllerRegistration {
    return {
      name: RECLAIM_CONTROLLER,
      forType: LEASES,
      reconcile: (key) => this.reconcile(key),
    };
  }

  async reconcile(key: string): Promise<ReconcileResult> {
    const { namespace = '', name } = splitKey(key);
    const lease = (await this.ports.cache.read<ClusterLease>(LEASES)).get(name, namespace);
    if (!lease || lease.metadata.deletionTimestamp) return {};
    const run = leaseRun(lease);
    if (!run || outlivesItsJob(lease)) return {};
    if ('invalid' in run) {
      await this.tell(lease, {
        status: 'Unknown',
        reason: RunReason.InvalidRunAnnotations,
        message: run.invalid,
      });
      return {};
    }
    const repository = `${run.owner}/${run.repo}`;
    if (!repositoryAllowed(this.settings.github, repository)) {
      await this.tell(lease, {
        status: 'Unknown',
        reason: RunReason.RepositoryNotAllowed,
        message: `the operator does not ask GitHub about ${repository}: it is not among the repositories its admin allows (${GITHUB_SETTINGS.allowed})`,
      });
      return {};
    }
    const state = await this.answers.state(run);
    const verdict = state.kind === 'jobs' ? judgeJobs(run, state.jobs, state.complete) : state;
    const told = await this.tell(lease, verdict);
    if (verdict.status === 'True') {
      await this.ports.events.record(
        told,
        'Normal',
        RUN_COMPLETED_EVENT,
        `GitHub reports that ${verdict.message}; releasing the cluster`,
      );
      await deleteLease(this.ports.client, told);
      return {};
    }
    return { requeueAfterMs: Math.max(0, state.retryAtMs - this.ports.clock.now()) };
  }

  /** Writes the RunCompleted condition (only when it changed). */
  private async tell(lease: Lease, verdict: RunVerdict): Promise<Lease> {
    const { status, reason, message } = verdict;
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
    return writeLeaseStatus(this.ports, lease, { ...lease.status, conditions });
  }
}

/** Kept past its job on purpose: held after a failure, or made with the Action's `release: false`. */
function outlivesItsJob(lease: Lease): boolean {
  return (
    lease.metadata.labels?.[LABEL_LEASE_HELD] === 'true' ||
    lease.metadata.annotations?.[ANNOTATION_KEEP_AFTER_JOB] === 'true'
  );
}
