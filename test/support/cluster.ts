import { randomBytes } from 'node:crypto';
import { ApiClient } from '../../client/kube/api-client.js';
import type { AdminAccess } from '../../dev/support/admin-access.js';
import { adminAccessFromFile } from '../../dev/support/admin-access.js';
import { PODS } from '../../client/api/core-resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../operator/api/platform-resources.js';
import { INSTANCES, LEASES, NAMESPACES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { emptyTerminatingNamespace } from './namespace-content.js';
import { testEnv } from './test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';

/** Admin access to the run's control plane, or to the one whose admin kubeconfig is `file`. */
export function adminKubeConfig(file = testEnv('kubeconfig')): AdminAccess {
  return adminAccessFromFile(file);
}

export interface TestNamespace {
  /** Set in beforeAll. */
  name: string;
  /** client-node's typed clients, for a test that wants them: test/support/client-node-clients.ts. */
  kubeConfig: AdminAccess;
  /** Our own JSON client: plain objects, subresources. */
  api: ApiClient;
}

/** Kinds whose objects carry finalizers that the operator or a simulated controller removes. */
const FINALIZED_KINDS = [INSTANCES, POOLS, LEASES, HOSTED_CLUSTERS, NODE_POOLS];

/**
 * Whether the namespace holds what needs the file's controllers to go (which its later afterAll
 * hooks stop): a pod that runs, or one of our kinds with a finalizer. A quick look: most files
 * leave neither, and their namespace needs no more than its deletion.
 */
async function needsControllers(api: ApiClient, namespace: string): Promise<boolean> {
  const [pods, ...lists] = await Promise.all([
    api.list<KubeObject & { status?: { phase?: string } }>(PODS, { namespace }),
    ...FINALIZED_KINDS.map((type) => api.list<KubeObject>(type, { namespace })),
  ]);
  return (
    pods.items.some((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? '')) ||
    lists.some((list) => list.items.some((o) => (o.metadata?.finalizers ?? []).length > 0))
  );
}

/** Admin clients of a control plane, for a namespace to be named when it is created. */
export function namespaceClients(kubeConfig: AdminAccess): TestNamespace {
  return { name: '', kubeConfig, api: new ApiClient(kubeConfig) };
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
  await ns.api.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
  });
}

/**
 * Deletes a test file's namespace. When something in it needs the file's controllers, its whole
 * content is deleted here and what needs them (an object with a finalizer, a pod that runs) is
 * awaited, so that the controllers can stop next: the namespace controller would start on that
 * only after its grace of at least 5 s. The emptied namespace is left to it and to the run's
 * global teardown, which waits for all of them at once (it fails on one that stays), unless its
 * deletion is to be awaited here (a benchmark, so that the next one does not run into it).
 */
export async function deleteTestNamespace(
  ns: TestNamespace,
  options: { await?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  if (!ns.name) return;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const bound = await needsControllers(ns.api, ns.name);
  // Terminating first: the namespace admits nothing new while its content goes.
  await ns.api.delete(NAMESPACES, ns.name);
  if (bound) await emptyTerminatingNamespace(ns.kubeConfig, ns.api, ns.name, timeoutMs);
  if (!options.await) return;
  await waitFor(ns.kubeConfig, {
    type: NAMESPACES,
    name: ns.name,
    until: (gone) => gone === undefined,
    timeoutMs,
  });
}
