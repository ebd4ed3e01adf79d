import { releaseLease } from '../../../client/lease/release-lease.js';
import { errorMessage } from '../../../client/lease/lease-ui.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import { CommandExit } from './exit-codes.js';
import { writeFailureDiagnostics } from './failure-diagnostics.js';
import type { HoldAnswer } from './hold.js';
import { holdExactly, holdFlag } from './hold.js';
import { holdInstructions } from './hold-instructions.js';
import { jobStatusFlag } from './job-status.js';
import { leaseNameFlag, outputFormat } from './lease-flags.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { say, tell } from './terminal.js';

/** The delete, its retries, and waiting for the operator to let go of the instance. */
const RELEASE_BUDGET_MS = 120_000;

export interface ReleaseFlags extends ManagementFlags {
  output?: string;
  jobStatus?: string;
  holdOnFailure?: string;
  /** false with --no-diagnostics. */
  diagnostics?: boolean;
  diagnosticsOut?: string;
}

/**
 * `guestcluster lease release NAME`: deletes the lease (that very object, by UID) and waits until
 * it is gone. A lease that is already gone is fine: releasing twice is harmless (after_script).
 * With `--job-status failure` it does what the Action's post step does after a failed job
 * (docs/reference/cli.md#after-a-failed-job): the lease's diagnostics to a folder, then, with
 * `--hold-on-failure D`, a hold instead of the release.
 */
export async function release(nameArgument: string, flags: ReleaseFlags): Promise<void> {
  const output = outputFormat(flags.output);
  const name = leaseNameFlag('NAME', nameArgument);
  const status = jobStatusFlag(flags.jobStatus);
  const holdMs = flags.holdOnFailure ? holdFlag('--hold-on-failure', flags.holdOnFailure) : 0;
  const { api, namespace } = managementAccess(flags);
  try {
    let lease: ClusterLease | undefined;
    try {
      lease = await api.get<ClusterLease>(LEASES, name, namespace);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const failed =
      lease && status === 'failure' ? await afterFailure(api, lease, flags, holdMs) : {};
    const result = failed.held
      ? failed.held.result
      : lease
        ? await releaseExactly(api, lease)
        : 'already-gone';
    const diagnostics = 'diagnostics' in failed ? { diagnostics: failed.diagnostics } : {};
    if (output === 'json')
      say(JSON.stringify({ name, namespace, result, ...failed.held, ...diagnostics }, null, 2));
    else
      say(
        `ClusterLease ${namespace}/${name}: ${failed.held ? `${result} until ${failed.held.until}` : result}`,
      );
  } finally {
    await api.close();
  }
}

async function releaseExactly(api: ApiClient, lease: ClusterLease): Promise<string> {
  const { name, namespace, uid } = lease.metadata!;
  return releaseLease(
    api,
    { name: name!, namespace: namespace!, uid },
    {
      budgetMs: RELEASE_BUDGET_MS,
      onRetry: (error) => tell(`Releasing failed (${(error as Error).message}); retrying`),
    },
  );
}

/**
 * A failed job: the diagnostics first (unless --no-diagnostics), then the hold when asked. A
 * hold that cannot be set is said, and the lease is released as it would have been.
 */
async function afterFailure(
  api: ApiClient,
  lease: ClusterLease,
  flags: ReleaseFlags,
  holdMs: number,
): Promise<{ held?: HoldAnswer; diagnostics?: string | null }> {
  const name = lease.metadata!.name!;
  const namespace = lease.metadata!.namespace!;
  const where = `ClusterLease ${namespace}/${name}`;
  const diagnostics =
    flags.diagnostics === false
      ? undefined
      : await writeFailureDiagnostics(
          api,
          { name, namespace },
          flags.diagnosticsOut ?? `guestcluster-diagnostics-${name}`,
        );
  const found = diagnostics === undefined ? {} : { diagnostics };
  if (holdMs <= 0) return found;
  try {
    // As the Action's post: a hold beyond the pool's limits is shortened, not refused.
    const { hold, answer } = await holdExactly(api, lease, holdMs, 'shorten');
    if (hold.holdMs <= 0) {
      tell(`The job failed, but ${where} has reached ${hold.shortenedBy}: releasing it`);
      return found;
    }
    tell(holdInstructions(hold, 'after the job failed'));
    return { ...found, held: answer };
  } catch (error) {
    const why = error instanceof CommandExit ? error.message : errorMessage(error);
    tell(`Could not hold ${where} (${why}); releasing it instead`);
    return found;
  }
}
