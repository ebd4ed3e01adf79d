import { readFileSync } from 'node:fs';
import { ApiClient } from '../../../client/kube/api-client.js';
import { clusterAccess, defaultClusterAccess } from '../../../client/kube/cluster-access.js';
import { KubeconfigError, parseKubeconfig } from '../../../client/kube/kubeconfig.js';
import type { ExchangeFlags } from './exchanged-management.js';
import { exchangedManagement } from './exchanged-management.js';
import { badInput } from './exit-codes.js';

export interface ManagementFlags extends ExchangeFlags {
  kubeconfig?: string;
  namespace?: string;
}

export interface Management {
  api: ApiClient;
  namespace: string;
  server: string;
}

type ReadFile = (file: string) => string;

/** A pod's own namespace, beside its ServiceAccount token. */
const POD_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';
const IN_CLUSTER = 'in-cluster service account';

function readable(file: string, readFile: ReadFile): string {
  try {
    return readFile(file);
  } catch (error) {
    throw badInput(`The kubeconfig ${file} cannot be read: ${(error as Error).message}`);
  }
}

/** The cluster, and the namespace its kubeconfig context or its pod names. */
function locate(
  flags: ManagementFlags,
  env: NodeJS.ProcessEnv,
  readFile: ReadFile,
): ReturnType<typeof defaultClusterAccess> & { namespace?: string } {
  if (flags.kubeconfig) {
    const context = parseKubeconfig(readable(flags.kubeconfig, readFile));
    const access = clusterAccess(context, readFile);
    return {
      access,
      server: context.server,
      source: flags.kubeconfig,
      namespace: context.namespace,
    };
  }
  const found = defaultClusterAccess(env, readFile);
  const namespace =
    found.source === IN_CLUSTER
      ? orUndefined(() => readFile(POD_NAMESPACE_FILE).trim())
      : parseKubeconfig(readFile(found.source)).namespace;
  return { ...found, namespace };
}

function orUndefined(read: () => string): string | undefined {
  try {
    return read() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The management cluster, where kubectl would find it: --kubeconfig, else $KUBECONFIG, else
 * ~/.kube/config, else the pod's ServiceAccount (a Tekton step, a GitLab runner pod). The
 * namespace is --namespace, else the context's, else the pod's, else "default". With
 * --token-exchange, --server and a token exchanged for the CI's ID token instead.
 */
export function managementAccess(
  flags: ManagementFlags,
  env: NodeJS.ProcessEnv = process.env,
  readFile: ReadFile = (file) => readFileSync(file, 'utf8'),
): Management {
  if (flags.tokenExchange) {
    if (flags.kubeconfig)
      throw badInput('--token-exchange and --kubeconfig exclude each other; give --server');
    return exchangedManagement(flags, env, readFile);
  }
  let found: ReturnType<typeof locate>;
  try {
    found = locate(flags, env, readFile);
  } catch (error) {
    if (error instanceof KubeconfigError) throw badInput(`The kubeconfig ${error.message}`);
    if (error instanceof Error && error.message.startsWith('No kubeconfig'))
      throw badInput(`${error.message}; give --kubeconfig`);
    throw error;
  }
  return {
    api: new ApiClient(found.access),
    namespace: flags.namespace || found.namespace || 'default',
    server: found.server,
  };
}
