import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import { isConflict } from '../../../client/kube/api-error.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { Instance } from './binding-model.js';

export type DeletionOutcome = 'deleted' | 'gone' | 'kept';

/** Live reads and retries after the object changed under a delete, before giving the pass up. */
const MAX_ATTEMPTS = 3;

/**
 * Deletes an instance that a controller decided to delete from what it saw (its cache), only if
 * that decision still holds. The delete names the UID and the resourceVersion seen, so it fails
 * if the instance changed meanwhile (claimed a moment ago, say); then the instance is read live
 * and `stillWanted` decides again, as Kubernetes' PV controller re-reads a volume before it
 * deletes it. 'gone': it no longer exists (or its name now belongs to another object).
 */
export async function deleteInstanceIf(
  client: KubeClient,
  seen: Instance,
  stillWanted: (live: Instance) => boolean,
): Promise<DeletionOutcome> {
  const { name, namespace, uid } = seen.metadata;
  let current = seen;
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(await client.deleteIfExists(INSTANCES, current, { unchanged: true }))) return 'gone';
      return 'deleted';
    } catch (error) {
      if (!isConflict(error) || attempt >= MAX_ATTEMPTS) throw error;
    }
    const live = await client.getOrUndefined<ClusterInstance>(INSTANCES, name, namespace);
    if (!live || live.metadata.uid !== uid) return 'gone';
    if (!stillWanted(live)) return 'kept';
    current = live;
  }
}
