import https from 'node:https';
import { clusterAccess } from '../../kube/cluster-access.js';
import type { KubeconfigContext } from '../../kube/kubeconfig.js';
import { parseKubeconfig } from '../../kube/kubeconfig.js';

/** Where to connect for a host and port; production connects to the name itself (DNS). */
export type ConnectAddress = (host: string, port: number) => { host: string; port: number };

export type GuestApiProbe = (kubeconfig: string) => Promise<void>;

const PROBE_TIMEOUT_MS = 10_000;

/**
 * The guest API readiness check (spec §2.3.1): GET <server>/readyz with the kubeconfig's
 * credentials and CA; resolves on 2xx, rejects with the reason otherwise. `connectAddress` lets a
 * caller choose the address without changing the name TLS verifies (like an /etc/hosts entry).
 */
export function guestApiProbe(connectAddress?: ConnectAddress): GuestApiProbe {
  return async (kubeconfig) => {
    if (!kubeconfig.trim()) throw new Error('kubeconfig is empty');
    let context: KubeconfigContext;
    try {
      context = parseKubeconfig(kubeconfig);
    } catch (error) {
      throw new Error(`parsing kubeconfig: ${(error as Error).message}`, { cause: error });
    }
    const url = new URL(context.server + '/readyz');
    const port = Number(url.port) || 443;
    const address = connectAddress?.(url.hostname, port) ?? { host: url.hostname, port };
    const options: https.RequestOptions = {};
    await clusterAccess(context).applyToHTTPSOptions(options);
    const status = await new Promise<number>((resolve, reject) => {
      const request = https.request(
        {
          ...options,
          host: address.host,
          port: address.port,
          path: url.pathname,
          method: 'GET',
          servername: context.servername ?? url.hostname,
          headers: { ...options.headers, host: url.host },
          timeout: PROBE_TIMEOUT_MS,
          agent: false,
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('timeout', () =>
        request.destroy(new Error('guest API readiness check timed out')),
      );
      request.on('error', reject);
      request.end();
    });
    if (status < 200 || status >= 300) throw new Error(`guest API returned ${status}`);
  };
}
