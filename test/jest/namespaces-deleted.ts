import { adminAccessFromFile } from '../../dev/support/admin-access.js';
import { NAMESPACES } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { waitForList } from '../../dev/support/wait-for.js';

interface NamespaceObject extends KubeObject {
  status?: { conditions?: { type?: string; status?: string; message?: string }[] };
}

/** Long enough for a namespace full of objects; a stuck finalizer takes forever. */
const DELETION_TIMEOUT_MS = 120_000;

/**
 * Test files delete their namespaces at their end without waiting out the namespace controller
 * (at least 5 s each); the run waits for all of them here, at once. A namespace that does not
 * go fails the run, named with what the namespace controller says keeps it.
 */
export async function namespacesDeleted(kubeconfigPath: string): Promise<void> {
  const kubeConfig = adminAccessFromFile(kubeconfigPath);
  const deleting = (all: NamespaceObject[]): NamespaceObject[] =>
    all.filter((ns) => ns.metadata?.deletionTimestamp);
  let last: NamespaceObject[] = [];
  try {
    await waitForList<NamespaceObject>(kubeConfig, {
      type: NAMESPACES,
      until: (all) => (last = deleting(all)).length === 0,
      description: 'the namespaces of the test files to be deleted',
      timeoutMs: DELETION_TIMEOUT_MS,
    });
  } catch (error) {
    const stuck = last.map((ns) => {
      const why = (ns.status?.conditions ?? [])
        .filter((c) => c.status === 'True' && c.message)
        .map((c) => `${c.type}: ${c.message}`);
      return `${ns.metadata!.name} (${why.join('; ') || 'no condition yet'})`;
    });
    throw new Error(`${(error as Error).message}; still deleting: ${stuck.join(', ')}`, {
      cause: error,
    });
  }
}
