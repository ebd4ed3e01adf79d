import path from 'node:path';
import { readGuestKubeconfig } from '../../../client/lease/guest-kubeconfig.js';
import { writePrivateFile } from '../../../client/lease/private-file.js';
import { readLease } from './read-lease.js';
import { CommandExit, EXIT } from './exit-codes.js';
import { leaseNameFlag, outputFormat } from './lease-flags.js';
import type { ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { say } from './terminal.js';

/**
 * `guestcluster lease kubeconfig NAME`: the guest kubeconfig of a bound lease, written to
 * --kubeconfig-out (mode 0600; the path is printed) or printed, for `> file` or a pipe.
 */
export async function kubeconfig(
  nameArgument: string,
  flags: ManagementFlags & { kubeconfigOut?: string; output?: string },
): Promise<void> {
  const output = outputFormat(flags.output);
  const name = leaseNameFlag('NAME', nameArgument);
  const { api, namespace } = managementAccess(flags);
  const where = `ClusterLease ${namespace}/${name}`;
  try {
    const lease = await readLease(api, namespace, name);
    const phase = lease.status?.phase ?? 'Pending';
    if (!['Bound', 'NotReady'].includes(phase))
      throw new CommandExit(EXIT.error, `${where} is ${phase}: it has no cluster to reach`);
    const text = await readGuestKubeconfig(api, lease);
    if (flags.kubeconfigOut) {
      const file = path.resolve(flags.kubeconfigOut);
      await writePrivateFile(file, text);
      say(
        output === 'json' ? JSON.stringify({ name, namespace, kubeconfig: file }, null, 2) : file,
      );
    } else if (output === 'json') say(JSON.stringify({ name, namespace, content: text }, null, 2));
    else process.stdout.write(text);
  } finally {
    await api.close();
  }
}
