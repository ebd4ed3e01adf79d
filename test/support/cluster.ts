import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { ApiClient } from '../../operator/kube/api-client.js';
import { isConflict, isNotFound } from '../../operator/kube/api-error.js';
import { PODS } from '../../operator/api/core-resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../operator/api/platform-resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS } from '../../operator/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { testEnv } from './test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';

/** Admin access to the run's control plane, or to the one whose admin kubeconfig is `file`. */
export function adminKubeConfig(file = testEnv('kubeconfig')): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(file);
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

/** Kinds whose objects carry finalizers that the operator or a simulated controller removes. */
const FINALIZED_KINDS = [INSTANCES, POOLS, LEASES, HOSTED_CLUSTERS, NODE_POOLS];

interface ControllerBound {
  /** Pods that run: only a (simulated) kubelet lets them go. */
  runningPods: boolean;
  /** Objects with finalizers: only the controller that set them lets them go. */
  finalized: { type: (typeof FINALIZED_KINDS)[number]; object: KubeObject }[];
}

/** What of the namespace needs the file's controllers to go, which its later afterAll hooks may stop. */
async function controllerBound(api: ApiClient, namespace: string): Promise<ControllerBound> {
  // The apiserver deletes a pod that ended at once; one that runs waits for its kubelet.
  const pods = await api.list<KubeObject & { status?: { phase?: string } }>(PODS, { namespace });
  const lists = await Promise.all(
    FINALIZED_KINDS.map(async (type) => ({
      type,
      items: (await api.list<KubeObject>(type, { namespace })).items,
    })),
  );
  return {
    runningPods: pods.items.some((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? '')),
    finalized: lists.flatMap(({ type, items }) =>
      items
        .filter((object) => (object.metadata?.finalizers ?? []).length > 0)
        .map((object) => ({ type, object })),
    ),
  };
}

/** Admin clients of a control plane, for a namespace to be named when it is created. */
export function namespaceClients(kubeConfig: KubeConfig): TestNamespace {
  return {
    name: '',
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    objects: KubernetesObjectApi.makeApiClient(kubeConfig),
    api: new ApiClient(kubeConfig),
  };
}

/** Names `ns` after `prefix` and a random suffix, and creates it with `labels`. */
export async function createTestNamespace(
  ns: TestNamespace,
  prefix: string,
  labels: Record<string, string> = {},
): Promise<void> {
  await createNamespace(ns, `${prefix}-${randomBytes(3).toString('hex')}`, labels);
}

/** Creates the namespace `name` for `ns`'s clients, with `labels`. */
export async function createNamespace(
  ns: TestNamespace,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  ns.name = name;
  await ns.core.createNamespace({ body: { metadata: { name, labels } } });
}

/**
 * Deletes a test file's namespace. The namespace controller takes at least 5 s to delete one
 * (its grace before it starts). A namespace that needs the file's controllers to go, and one
 * whose deletion is to be awaited (a benchmark, so that the next one does not run into it), is
 * awaited here, its finalized objects deleted first so that their teardown runs during that
 * grace; the others the run's global teardown waits for, all at once (it fails on one that
 * stays).
 */
export async function deleteTestNamespace(
  ns: TestNamespace,
  options: { await?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  if (!ns.name) return;
  const bound = await controllerBound(ns.api, ns.name);
  // Their teardown starts now rather than once the namespace controller has waited out its grace.
  await Promise.all(
    bound.finalized.map(({ type, object }) =>
      ns.api
        .delete(type, object.metadata!.name!, ns.name, { uid: object.metadata!.uid })
        .catch((error: unknown) => {
          if (!isNotFound(error) && !isConflict(error)) throw error;
        }),
    ),
  );
  await ns.core.deleteNamespace({ name: ns.name });
  if (!options.await && !bound.runningPods && bound.finalized.length === 0) return;
  await waitFor(ns.kubeConfig, {
    type: NAMESPACES,
    name: ns.name,
    until: (gone) => gone === undefined,
    timeoutMs: options.timeoutMs,
  });
}
