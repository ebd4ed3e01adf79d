import { RUN_ANNOTATIONS } from '../../../contracts/run-annotations.js';
import type { RepositoryFailure, RunFailure } from './github-answer.js';
import { REQUEST_TIMEOUT_MS } from './github-api.js';
import { GITHUB_SETTINGS } from './github-settings.js';
import type { LeaseRun } from './lease-run.js';
import { describeRun } from './lease-run.js';
import type { UnknownRun } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/**
 * Why a lease's run is not asked about until `retryAtMs`, in words a person can act on
 * (docs/reference/kinds.md#what-holds-reclaim-back): GitHub's answer about the run or its
 * repository, or the namespace's budget.
 */
const at = (ms: number): string => new Date(ms).toISOString();

function unknown(reason: RunReason, message: string, retryAtMs: number): UnknownRun {
  return { kind: 'unknown', status: 'Unknown', reason, message, retryAtMs, warn: true };
}

/** GitHub's answer about one run attempt: only that run waits. */
export function runHeldBack(run: LeaseRun, failure: RunFailure, retryAtMs: number): UnknownRun {
  const where = describeRun(run);
  const others = `other runs are asked as usual; asking about this one again at ${at(retryAtMs)}`;
  const message = ((): string => {
    switch (failure.reason) {
      case RunReason.RunNotFound:
        return `GitHub does not know ${where} (${failure.detail}): the run or attempt does not exist, or the operator's credential cannot read ${run.owner}/${run.repo}; asking again at ${at(retryAtMs)}`;
      case RunReason.RunGone:
        return `GitHub answered ${failure.detail} for ${where}: the run or attempt was deleted, so its job cannot be followed (the lease's TTL or kubectl delete releases it); ${others}`;
      case RunReason.RequestTimedOut:
        return `GitHub did not answer about ${where} within ${REQUEST_TIMEOUT_MS / 1000}s (${failure.detail}); ${others}`;
      case RunReason.GitHubUnavailable:
        return `GitHub answered ${failure.detail} for ${where}; ${others}`;
      default:
        return `GitHub refused the request for ${where} (${failure.detail}): check the lease's annotations ${RUN_ANNOTATIONS.runId} and ${RUN_ANNOTATIONS.runAttempt}; ${others}`;
    }
  })();
  return unknown(failure.reason, message, retryAtMs);
}

/** GitHub's answer about a repository: the runs of that repository wait, no other. */
export function repositoryHeldBack(
  run: LeaseRun,
  failure: RepositoryFailure,
  retryAtMs: number,
): UnknownRun {
  const repository = `${run.owner}/${run.repo}`;
  const again = `other repositories are asked as usual; runs of ${repository} are asked about again at ${at(retryAtMs)}`;
  const message = ((): string => {
    switch (failure.reason) {
      case RunReason.RepositoryMoved:
        return `GitHub answered ${failure.detail} for ${repository}: the repository was renamed or transferred, and the operator does not follow redirects; runs under its new name are asked about (annotation ${RUN_ANNOTATIONS.repository}, which the Action writes from the run); ${again}`;
      case RunReason.RepositoryUnavailable:
        return `GitHub answered ${failure.detail} for ${repository}: the repository is unavailable for legal reasons; ${again}`;
      default:
        return failure.sso
          ? `GitHub refused the operator's credential access to ${repository} (${failure.detail}): the organisation ${run.owner} enforces SAML single sign-on; an owner of ${run.owner} authorises the token, or installs the App, for it; ${again}`
          : `GitHub refused the operator's credential access to ${repository} (${failure.detail}): the organisation ${run.owner} may allow only listed IP addresses (add the operator's egress address), or the credential cannot read Actions of ${repository}; ${again}`;
    }
  })();
  return unknown(failure.reason, message, retryAtMs);
}

/** The namespace has spent its requests of this hour. */
export function budgetExhausted(
  run: LeaseRun,
  namespace: string,
  perHour: number,
  retryAtMs: number,
): UnknownRun {
  return unknown(
    RunReason.RequestBudgetExhausted,
    `namespace ${namespace} has used its ${perHour} requests to GitHub for this hour (${GITHUB_SETTINGS.requests}); asking about ${describeRun(run)} again at ${at(retryAtMs)}`,
    retryAtMs,
  );
}

/** The namespace's leases name more runs than are asked about per namespace. */
export function overRunCap(
  run: LeaseRun,
  namespace: string,
  counts: { distinct: number; cap: number },
  retryAtMs: number,
): UnknownRun {
  return unknown(
    RunReason.RunCapReached,
    `the bound leases of namespace ${namespace} name ${counts.distinct} distinct GitHub run attempts; the operator asks about at most ${counts.cap} per namespace (${GITHUB_SETTINGS.maxRuns}), those of the oldest leases first, so ${describeRun(run)} is not asked about until leases of older runs are gone (this lease's TTL or kubectl delete still releases it); it is looked at again every poll interval`,
    retryAtMs,
  );
}
