import { readFileSync } from 'node:fs';
import { ApiClient } from '../../kube/api-client.js';
import { clusterAccess, defaultClusterAccess } from '../../kube/cluster-access.js';
import { KubeconfigError, parseKubeconfig } from '../../kube/kubeconfig.js';
import { badInput } from './exit-codes.js';

export interface ManagementFlags {
  kubeconfig?: string;
  namespace?: string;
}

export interface Management {
  api: ApiClient;
  namespace: string;
  server: string;
}

/** A pod's own namespace, beside its ServiceAccount token. */
const POD_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function readable(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw badInput(`${what} ${file} cannot be read: ${(error as Error).message}`);
  }
}

/**
 * The management cluster, where kubectl would find it: --kubeconfig, else $KUBECONFIG, else
 * ~/.kube/config, else the pod's ServiceAccount (a Tekton step, a GitLab runner pod). The
 * namespace is --namespace, else the context's, else the pod's, else "default".
 */
export function managementAccess(flags: ManagementFlags, env = process.env): Management {
  let found: ReturnType<typeof defaultClusterAccess>;
  let contextNamespace: string | undefined;
  try {
    if (flags.kubeconfig) {
      const context = parseKubeconfig(readable(flags.kubeconfig, 'The kubeconfig'));
      contextNamespace = context.namespace;
      found = { access: clusterAccess(context), server: context.server, source: flags.kubeconfig };
    } else {
      found = defaultClusterAccess(env);
      if (found.source !== 'in-cluster service account')
        contextNamespace = parseKubeconfig(readFileSync(found.source, 'utf8')).namespace;
    }
  } catch (error) {
    if (error instanceof KubeconfigError) throw badInput(`The kubeconfig ${error.message}`);
    if (error instanceof Error && error.message.startsWith('No kubeconfig'))
      throw badInput(`${error.message}; give --kubeconfig`);
    throw error;
  }
  const podNamespace = found.source === 'in-cluster service account' ? podNamespaceOf() : undefined;
  return {
    api: new ApiClient(found.access),
    namespace: flags.namespace || contextNamespace || podNamespace || 'default',
    server: found.server,
  };
}

function podNamespaceOf(): string | undefined {
  try {
    return readFileSync(POD_NAMESPACE_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
