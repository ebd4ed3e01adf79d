import { setTimeout as delay } from 'node:timers/promises';
import { PODS } from '../../../client/api/core-resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import { resourceType } from '../../../client/kube/resource-type.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { NODES } from '../../../operator/api/platform-resources.js';

const evictionOf = (pod: string) => resourceType('v1', 'Eviction', `pods/${pod}/eviction`);

/**
 * `kubectl drain` on a simulated node: cordon it (spec.unschedulable), evict every pod bound to
 * it through the Eviction API (each naming its UID), keep it cordoned for `ms`, then uncordon it.
 * Returns how many pods were evicted; the rest of the platform reacts as it does to any eviction.
 */
export async function drainNode(
  api: ApiClient,
  node: string,
  ms: number,
  log: (line: string) => void,
): Promise<number> {
  await api.patch(NODES, { name: node }, { spec: { unschedulable: true } });
  let evicted = 0;
  try {
    const pods = await api.list<KubeObject>(PODS, { fieldSelector: `spec.nodeName=${node}` });
    for (const pod of pods.items) {
      const { name, namespace, uid, deletionTimestamp } = pod.metadata ?? {};
      if (!name || !namespace || deletionTimestamp) continue;
      try {
        await api.create(evictionOf(name), {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace },
          deleteOptions: { preconditions: { uid } },
        } as KubeObject);
        evicted++;
      } catch (error) {
        if (!isNotFound(error))
          log(`node-drain: could not evict ${namespace}/${name}: ${(error as Error).message}`);
      }
    }
    await delay(ms);
  } finally {
    await api.patch(NODES, { name: node }, { spec: { unschedulable: null } });
  }
  return evicted;
}
