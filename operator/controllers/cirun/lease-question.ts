import { LABEL_LEASE_HELD } from '../../../contracts/labels.js';
import { ANNOTATION_KEEP_AFTER_JOB } from '../../../contracts/run-annotations.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import type { GitHubReclaimSettings } from './github-settings.js';
import { GITHUB_SETTINGS, repositoryAllowed } from './github-settings.js';
import type { LeaseRun } from './lease-run.js';
import { leaseRun, runKey } from './lease-run.js';
import type { RunVerdict } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/** What the reclaim controller does about a lease, before any request. */
export type LeaseQuestion =
  /** Nothing: no run named, kept past its job, not bound, or its pool is gone. */
  | { kind: 'none' }
  /** Only a condition, at no cost: the annotations are malformed or the repository not allowed. */
  | { kind: 'tell'; verdict: RunVerdict }
  | {
      kind: 'ask';
      run: LeaseRun;
      runKey: string;
      /** Answers fetched before this (epoch ms) cannot release the lease: they predate it. */
      answersFrom: number;
    };

/** Phases of a lease that holds a cluster. */
const HOLDING = new Set(['Bound', 'NotReady']);

/**
 * Whether a lease is asked about (docs/reference/kinds.md#release-when-the-github-job-completed):
 * only one that holds a cluster of a pool that exists costs a request; a lease that waits, or
 * names a pool that does not exist, costs nothing, however many a tenant makes.
 */
export function leaseQuestion(
  lease: ClusterLease,
  settings: GitHubReclaimSettings,
  poolExists: (namespace: string, name: string) => boolean,
): LeaseQuestion {
  const run = leaseRun(lease);
  if (!run || lease.metadata?.deletionTimestamp) return { kind: 'none' };
  const kept = outlivesItsJob(lease);
  if (kept)
    return {
      kind: 'tell',
      verdict: {
        status: 'Unknown',
        reason: RunReason.KeptPastItsJob,
        message: `the lease is ${kept}: GitHub is not asked about its job, and it is released at its TTL or when deleted`,
      },
    };
  if ('invalid' in run)
    return {
      kind: 'tell',
      verdict: { status: 'Unknown', reason: RunReason.InvalidRunAnnotations, message: run.invalid },
    };
  const repository = `${run.owner}/${run.repo}`;
  if (!repositoryAllowed(settings, repository))
    return {
      kind: 'tell',
      verdict: {
        status: 'Unknown',
        reason: RunReason.RepositoryNotAllowed,
        message: `the operator does not ask GitHub about ${repository}: it is not among the repositories its admin allows (${GITHUB_SETTINGS.allowed})`,
      },
    };
  const boundTime = holdingSince(lease);
  if (boundTime === undefined) return { kind: 'none' };
  if (!poolExists(lease.metadata?.namespace ?? '', lease.spec.poolRef.name))
    return { kind: 'none' };
  const created = Date.parse(lease.metadata?.creationTimestamp ?? '') || 0;
  // Both times are in whole seconds, rounded down: the lease may be up to a second younger.
  return {
    kind: 'ask',
    run,
    runKey: runKey(run),
    answersFrom: Math.max(created, boundTime) + 1000,
  };
}

/** When the lease was bound, if it holds a cluster now (Bound or NotReady, with its instance). */
function holdingSince(lease: ClusterLease): number | undefined {
  const status = lease.status;
  const boundTime = Date.parse(status?.boundTime ?? '');
  const holding = HOLDING.has(status?.phase ?? '') && !!status?.instanceRef?.name;
  return holding && boundTime > 0 ? boundTime : undefined;
}

/**
 * Why the lease is kept past its job on purpose, if it is: held after a failure, or made with the
 * Action's `release: false`.
 */
function outlivesItsJob(lease: ClusterLease): string | undefined {
  if (lease.metadata?.labels?.[LABEL_LEASE_HELD] === 'true')
    return `held (label ${LABEL_LEASE_HELD})`;
  if (lease.metadata?.annotations?.[ANNOTATION_KEEP_AFTER_JOB] === 'true')
    return `kept after its job (annotation ${ANNOTATION_KEEP_AFTER_JOB}, the Action's release: false)`;
  return undefined;
}
