import { ExtendError, extendLease } from '../../../client/lease/extend-lease.js';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { isInvalid, isNotFound } from '../../../client/kube/api-error.js';
import { badInput, CommandExit, EXIT } from './exit-codes.js';
import { leaseNameFlag, outputFormat, ttlFlag } from './lease-flags.js';
import { leaseSummary } from './lease-summary.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { observed } from './observed.js';
import { say } from './terminal.js';

/**
 * `guestcluster lease extend NAME --ttl D`: sets spec.ttl (counted from when the lease was bound)
 * and shows the new expiry once the operator has seen the change.
 */
export async function extend(
  nameArgument: string,
  flags: ManagementFlags & { ttl: string; output?: string },
): Promise<void> {
  const output = outputFormat(flags.output);
  const name = leaseNameFlag('NAME', nameArgument);
  const ttl = ttlFlag(flags.ttl);
  const { api, namespace } = managementAccess(flags);
  const where = `ClusterLease ${namespace}/${name}`;
  try {
    let lease: ClusterLease;
    try {
      await extendLease(api, namespace, name, ttl);
      // Read back rather than rely on the helper's answer: the Action's extend path shares it.
      lease = await api.get<ClusterLease>(LEASES, name, namespace);
    } catch (error) {
      if (!(error instanceof ExtendError)) throw error;
      // A refusal of the API (the field's schema, the pool's cap at admission) is bad input; a
      // TTL the helper refused itself has no cause.
      if (isNotFound(error.cause)) throw new CommandExit(EXIT.error, `${where} not found`);
      if (error.cause === undefined || isInvalid(error.cause))
        throw badInput(`${where} refused the ttl: ${error.message}`);
      throw error;
    }
    lease = await observed(api, lease);
    const summary = leaseSummary(lease);
    if (output === 'json') say(JSON.stringify(summary, null, 2));
    else
      say(
        `${where}: ttl ${summary.ttl ?? 'none'}, expires ${summary.expiresAt ?? 'never (not bound yet, or no ttl)'}`,
      );
  } finally {
    await api.close();
  }
}
