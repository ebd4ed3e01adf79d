import { releaseLease } from '../../../action/release-lease.js';
import type { ClusterLease } from '../../api/resources.js';
import type { ApiClient } from '../../kube/api-client.js';
import { tell } from './terminal.js';

/** Interrupted: a CI system kills the job a few seconds after its first signal. */
const INTERRUPTED_RELEASE_WAIT_MS = 5_000;
const RELEASE_WAIT_MS = 60_000;

/** Deletes the very lease this command created (by UID), as the Action's main step does. */
export async function releaseCreated(
  api: ApiClient,
  lease: ClusterLease,
  interrupted: boolean,
): Promise<void> {
  const { name, namespace, uid } = lease.metadata!;
  const where = `ClusterLease ${namespace}/${name}`;
  try {
    const result = await releaseLease(
      api,
      { name: name!, namespace: namespace!, uid },
      {
        budgetMs: interrupted ? INTERRUPTED_RELEASE_WAIT_MS : RELEASE_WAIT_MS,
        onRetry: (error) =>
          tell(`Releasing ${where} failed (${(error as Error).message}); retrying`),
      },
    );
    tell(`Released ${where} (${result})`);
  } catch (error) {
    tell(`Could not release ${where}: ${(error as Error).message}`);
  }
}
