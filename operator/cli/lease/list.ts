import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { outputFormat } from './lease-flags.js';
import { leaseSummary, leaseTable } from './lease-summary.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { say } from './terminal.js';

/** `guestcluster lease list`: the namespace's leases, oldest first, as a table or JSON. */
export async function list(
  flags: ManagementFlags & { pool?: string; output?: string },
): Promise<void> {
  // `--output name`: one name a line, for scripts and shell completion.
  const output = flags.output === 'name' ? 'name' : outputFormat(flags.output);
  const { api, namespace } = managementAccess(flags);
  try {
    const leases = await api.list<ClusterLease>(LEASES, { namespace });
    const items = leases.items
      .filter((lease) => !flags.pool || lease.spec.poolRef.name === flags.pool)
      .sort((a, b) =>
        (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''),
      )
      .map(leaseSummary);
    if (output === 'name') items.forEach((item) => say(item.name));
    else if (output === 'json') say(JSON.stringify({ namespace, items }, null, 2));
    else if (items.length === 0) say(`No ClusterLeases in namespace ${namespace}`);
    else say(leaseTable(items));
  } finally {
    await api.close();
  }
}
