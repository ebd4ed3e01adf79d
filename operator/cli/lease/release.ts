import { releaseLease } from '../../../client/lease/release-lease.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import { leaseNameFlag, outputFormat } from './lease-flags.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { say, tell } from './terminal.js';

/** The delete, its retries, and waiting for the operator to let go of the instance. */
const RELEASE_BUDGET_MS = 120_000;

/**
 * `guestcluster lease release NAME`: deletes the lease (that very object, by UID) and waits until
 * it is gone. A lease that is already gone is fine: releasing twice is harmless (after_script).
 */
export async function release(
  nameArgument: string,
  flags: ManagementFlags & { output?: string },
): Promise<void> {
  const output = outputFormat(flags.output);
  const name = leaseNameFlag('NAME', nameArgument);
  const { api, namespace } = managementAccess(flags);
  try {
    let uid: string | undefined;
    try {
      uid = (await api.get<ClusterLease>(LEASES, name, namespace)).metadata?.uid;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const result = uid
      ? await releaseLease(
          api,
          { name, namespace, uid },
          {
            budgetMs: RELEASE_BUDGET_MS,
            onRetry: (error) => tell(`Releasing failed (${(error as Error).message}); retrying`),
          },
        )
      : 'already-gone';
    if (output === 'json') say(JSON.stringify({ name, namespace, result }, null, 2));
    else say(`ClusterLease ${namespace}/${name}: ${result}`);
  } finally {
    await api.close();
  }
}
