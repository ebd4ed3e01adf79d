import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { CommandExit, EXIT } from './exit-codes.js';

/** The lease a verb acts on; one that does not exist ends the command with an error. */
export async function readLease(
  api: ApiClient,
  namespace: string,
  name: string,
): Promise<ClusterLease> {
  try {
    return await api.get<ClusterLease>(LEASES, name, namespace);
  } catch (error) {
    if (isNotFound(error))
      throw new CommandExit(EXIT.error, `ClusterLease ${namespace}/${name} not found`);
    throw error;
  }
}
