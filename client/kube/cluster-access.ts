import { readFileSync } from 'node:fs';
import type https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { ClusterAccess } from './api-client.js';
import type { KubeconfigContext } from './kubeconfig.js';
import { parseKubeconfig } from './kubeconfig.js';

/** Projected service-account tokens rotate; read the file again after this long. */
const TOKEN_FILE_TTL_MS = 60_000;

/** Cluster access from a kubeconfig context (or a server and token put in that shape). */
export function clusterAccess(
  context: KubeconfigContext,
  readFile: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): ClusterAccess {
  let fileToken: { value: string; readAt: number } | undefined;
  const token = (): string | undefined => {
    if (context.token || !context.tokenFile) return context.token;
    if (!fileToken || Date.now() - fileToken.readAt > TOKEN_FILE_TTL_MS)
      fileToken = { value: readFile(context.tokenFile).trim(), readAt: Date.now() };
    return fileToken.value;
  };
  return {
    getCurrentCluster: () => ({ server: context.server }),
    applyToHTTPSOptions: (options: https.RequestOptions): Promise<void> => {
      if (context.ca) options.ca = context.ca;
      if (context.cert) options.cert = context.cert;
      if (context.key) options.key = context.key;
      if (context.servername) options.servername = context.servername;
      if (context.insecureSkipTlsVerify) options.rejectUnauthorized = false;
      const bearer = token();
      if (bearer) options.headers = { ...options.headers, Authorization: `Bearer ${bearer}` };
      return Promise.resolve();
    },
  };
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The cluster a program should talk to, where client-go looks for it: the first file of
 * $KUBECONFIG that exists, else ~/.kube/config, else the pod's service account.
 */
export function defaultClusterAccess(
  env: NodeJS.ProcessEnv = process.env,
  readFile: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): { access: ClusterAccess; server: string; source: string } {
  const candidates = env.KUBECONFIG
    ? env.KUBECONFIG.split(path.delimiter).filter(Boolean)
    : [path.join(env.HOME ?? os.homedir(), '.kube', 'config')];
  for (const file of candidates) {
    let text: string;
    try {
      text = readFile(file);
    } catch {
      continue;
    }
    const context = parseKubeconfig(text);
    return { access: clusterAccess(context, readFile), server: context.server, source: file };
  }
  if (!env.KUBERNETES_SERVICE_HOST)
    throw new Error(
      `No kubeconfig (looked at ${candidates.join(', ')}) and not in a pod (KUBERNETES_SERVICE_HOST is unset)`,
    );
  const context = inClusterContext(env, readFile);
  return {
    access: clusterAccess(context, readFile),
    server: context.server,
    source: 'in-cluster service account',
  };
}

/**
 * The pod's own apiserver and ServiceAccount (KUBERNETES_SERVICE_HOST and _PORT, the mounted CA
 * and token); throws when the CA cannot be read.
 */
export function inClusterContext(
  env: NodeJS.ProcessEnv,
  readFile: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): KubeconfigContext {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? '443'}`,
    ca: readFile(path.join(SERVICE_ACCOUNT_DIR, 'ca.crt')),
    tokenFile: path.join(SERVICE_ACCOUNT_DIR, 'token'),
    insecureSkipTlsVerify: false,
  };
}
