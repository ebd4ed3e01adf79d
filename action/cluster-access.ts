import type https from 'node:https';
import type { ClusterAccess } from '../operator/kube/api-client.js';
import type { KubeconfigContext } from './kubeconfig.js';

/** Management-cluster access from fixed credentials (a kubeconfig context, or a server and token). */
export function clusterAccess(context: KubeconfigContext): ClusterAccess {
  return {
    getCurrentCluster: () => ({ server: context.server }),
    applyToHTTPSOptions: (options: https.RequestOptions): Promise<void> => {
      if (context.ca) options.ca = context.ca;
      if (context.cert) options.cert = context.cert;
      if (context.key) options.key = context.key;
      if (context.servername) options.servername = context.servername;
      if (context.insecureSkipTlsVerify) options.rejectUnauthorized = false;
      if (context.token)
        options.headers = { ...options.headers, Authorization: `Bearer ${context.token}` };
      return Promise.resolve();
    },
  };
}
