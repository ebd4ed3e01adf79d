import type { ClusterLease } from '../api/resources.js';
import { RUN_ANNOTATIONS } from '../../contracts/run-annotations.js';
import type { GitHubRun } from './github-run.js';
import { printable, runAnnotations } from './github-run.js';

/**
 * What tells the step of one job from every other's: the run, its attempt, the job, and which
 * execution of the job (its id where GitHub gives one, its runner, its matrix leg). Not the step:
 * a second try in the same job, with the same lease-name, takes over the lease of the first
 * (docs/adr/0036-one-job-owns-a-lease-and-its-files.md).
 */
const OWNER_KEYS = [
  RUN_ANNOTATIONS.repository,
  RUN_ANNOTATIONS.runId,
  RUN_ANNOTATIONS.runAttempt,
  RUN_ANNOTATIONS.job,
  RUN_ANNOTATIONS.jobId,
  RUN_ANNOTATIONS.runner,
  RUN_ANNOTATIONS.jobIndex,
];

/**
 * Whether this job made the lease: only then may it take the lease over, or release or hold it by
 * its name alone. Outside GitHub Actions no lease is anyone's.
 */
export function belongsTo(lease: ClusterLease, run: GitHubRun): boolean {
  if (!run.runId) return false;
  const recorded = lease.metadata?.annotations ?? {};
  const ours = runAnnotations(run);
  return OWNER_KEYS.every((key) => (recorded[key] ?? '') === (ours[key] ?? ''));
}

/** The job that run annotations name, for the log; they are untrusted text, kept to one line. */
function describeJob(annotations: Record<string, string>): string {
  const value = (key: string): string => printable(annotations[key] ?? '', 100);
  const parts = [
    `run ${value(RUN_ANNOTATIONS.runId)} attempt ${value(RUN_ANNOTATIONS.runAttempt) || '1'}`,
    `job "${value(RUN_ANNOTATIONS.job)}"`,
  ];
  const index = value(RUN_ANNOTATIONS.jobIndex);
  const matrix = printable(annotations[RUN_ANNOTATIONS.matrix] ?? '', 200);
  if (matrix || (index && index !== '0'))
    parts.push(`matrix leg ${index || '?'}${matrix ? ` (${matrix})` : ''}`);
  if (value(RUN_ANNOTATIONS.jobId)) parts.push(`job id ${value(RUN_ANNOTATIONS.jobId)}`);
  if (value(RUN_ANNOTATIONS.runner)) parts.push(`runner "${value(RUN_ANNOTATIONS.runner)}"`);
  return parts.join(', ');
}

/** Why this job may not take over `lease`, naming the job that made it. */
export function ownerConflict(lease: ClusterLease, run: GitHubRun): string {
  const recorded = lease.metadata?.annotations ?? {};
  const where = `ClusterLease ${lease.metadata?.namespace}/${lease.metadata?.name}`;
  const other = recorded[RUN_ANNOTATIONS.runId]
    ? describeJob(recorded)
    : `requested by "${printable(lease.spec.requestedBy ?? 'unknown', 200)}"`;
  const ours = run.runId ? `; this step runs in ${describeJob(runAnnotations(run))}` : '';
  return `${where} already exists and belongs to another job: ${other}${ours}. Give each job and matrix leg a "lease-name" of its own (for example one that ends in \${{ strategy.job-index }}), or leave it unset`;
}
