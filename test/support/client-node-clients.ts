import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import type { AdminAccess } from '../../dev/support/admin-access.js';

/*
 * client-node's typed clients, for the tests that use them. The world itself does not load
 * client-node (dev/support/admin-access.ts says why); a test file that imports this does.
 */

/** client-node's KubeConfig of the same kubeconfig. */
export function clientNodeConfig(access: AdminAccess): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(access.kubeconfig);
  return kubeConfig;
}

const cores = new WeakMap<AdminAccess, CoreV1Api>();
const objects = new WeakMap<AdminAccess, KubernetesObjectApi>();

/** The core API of a test namespace's control plane. */
export function coreApi(ns: { kubeConfig: AdminAccess }): CoreV1Api {
  let core = cores.get(ns.kubeConfig);
  if (!core) {
    core = clientNodeConfig(ns.kubeConfig).makeApiClient(CoreV1Api);
    cores.set(ns.kubeConfig, core);
  }
  return core;
}

/** client-node's generic object API of a test namespace's control plane. */
export function objectsApi(ns: { kubeConfig: AdminAccess }): KubernetesObjectApi {
  let api = objects.get(ns.kubeConfig);
  if (!api) {
    api = KubernetesObjectApi.makeApiClient(clientNodeConfig(ns.kubeConfig));
    objects.set(ns.kubeConfig, api);
  }
  return api;
}
