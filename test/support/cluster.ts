import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { afterAll, beforeAll } from '@jest/globals';
import { ApiClient } from '../../operator/kube/api-client.js';
import { NAMESPACES } from '../../operator/api/resources.js';
import { testEnv } from './test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';

/** Admin access to the run's control plane. */
export function adminKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(testEnv('kubeconfig'));
  return kubeConfig;
}

export interface TestNamespace {
  /** Set in beforeAll. */
  name: string;
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  objects: KubernetesObjectApi;
  /** Our own JSON client: plain objects, subresources. */
  api: ApiClient;
}

/**
 * A fresh namespace for the calling test file, created before its tests and deleted (and awaited
 * until gone) after them. Use at the top level of a test file.
 */
export function useTestNamespace(
  prefix: string,
  options: { deleteTimeoutMs?: number } = {},
): TestNamespace {
  const kubeConfig = adminKubeConfig();
  const context: TestNamespace = {
    name: '',
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    api: new ApiClient(kubeConfig),
  };
  beforeAll(async () => {
    context.name = `${prefix}-${randomBytes(3).toString('hex')}`;
    await context.core.createNamespace({ body: { metadata: { name: context.name } } });
  });
  afterAll(async () => {
    if (!context.name) return;
    await context.core.deleteNamespace({ name: context.name });
    await waitFor(kubeConfig, {
      type: NAMESPACES,
      name: context.name,
      until: (ns) => ns === undefined,
      timeoutMs: options.deleteTimeoutMs,
    });
  });
  return context;
}
