import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { ApiClient } from '../../../client/kube/api-client.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { InformerHandlers } from '../../../operator/runtime/informer.js';
import { Informer } from '../../../operator/runtime/informer.js';
import { RuntimeMetrics } from '../../../operator/runtime/metrics.js';
import { PLATFORM_WATCH_BACKOFF, platformLogger, syncedWithin } from './simulator-host.js';

/**
 * A watch of one kind in one namespace for a simulated platform part that needs no work queue,
 * on the runtime's informer (list-then-watch, relist on 410, backoff): the simulation reacts to
 * objects the way the real controllers do, and is as resilient as the operator it plays against.
 */
export async function startPlatformInformer<T extends KubeObject>(
  kubeConfig: ClusterAccess,
  type: ResourceType,
  namespace: string,
  handlers: InformerHandlers<T>,
  /** Called before the first list, so handlers may use the informer and client from the start. */
  onCreated?: (created: { informer: Informer<T>; client: ApiClient }) => void,
): Promise<{ informer: Informer<T>; client: ApiClient }> {
  const client = new ApiClient(kubeConfig);
  const informer = new Informer<T>({
    type,
    namespace,
    client,
    logger: platformLogger(),
    metrics: new RuntimeMetrics(),
    backoff: PLATFORM_WATCH_BACKOFF,
  });
  onCreated?.({ informer, client });
  informer.addHandlers(handlers);
  informer.start();
  try {
    await syncedWithin([informer]);
  } catch (error) {
    await informer.stop();
    await client.close();
    throw error;
  }
  return { informer, client };
}
