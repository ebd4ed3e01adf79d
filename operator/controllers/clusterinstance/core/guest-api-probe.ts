import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent, buildConnector, request } from 'undici';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';

/** Where to connect for a host and port; production connects to the name itself (DNS). */
export type ConnectAddress = (host: string, port: number) => { host: string; port: number };

/**
 * Checks a guest API with what the operator holds for it: never a kubeconfig as read from a
 * Secret, so no field of one can make it read a file, run a program or pick a proxy.
 */
export type GuestApiProbe = (access: GuestAccess) => Promise<void>;

const PROBE_TIMEOUT_MS = 10_000;

/**
 * The guest API readiness check (docs/reference/instances.md#common-steps): GET <server>/readyz
 * with the instance's credential and CA; resolves on 2xx, rejects with the reason otherwise. It
 * goes through the proxy of HTTPS_PROXY unless NO_PROXY exempts the host (a management cluster's
 * cluster-wide proxy sets these on the operator's pod). `connectAddress` lets a caller choose the
 * address without changing the name TLS verifies (like an /etc/hosts entry).
 */
export function guestApiProbe(connectAddress?: ConnectAddress): GuestApiProbe {
  return async (access) => {
    const url = new URL(access.server + '/readyz');
    const credentials = access.credentials;
    const tls = {
      ca: access.ca,
      ...('token' in credentials ? {} : { cert: credentials.cert, key: credentials.key }),
      servername: url.hostname,
      timeout: PROBE_TIMEOUT_MS,
      // HTTP/1.1: over HTTP/2, a probe that times out while the response headers are on the way
      // leaves a stream the late headers bring back with no 'error' listener, and destroying the
      // connection right after, as below, would then end the process.
      allowH2: false,
    } as buildConnector.BuildOptions;
    const dispatcher = connectAddress
      ? redirectingAgent(tls, connectAddress)
      : new EnvHttpProxyAgent({ connect: tls, requestTls: tls });
    let status: number;
    try {
      const response = await request(url, {
        method: 'GET',
        headers: 'token' in credentials ? { authorization: `Bearer ${credentials.token}` } : {},
        dispatcher,
        headersTimeout: PROBE_TIMEOUT_MS,
        bodyTimeout: PROBE_TIMEOUT_MS,
      });
      await response.body.dump();
      status = response.statusCode;
    } finally {
      await dispatcher.destroy();
    }
    if (status < 200 || status >= 300) throw new Error(`guest API returned ${status}`);
  };
}

/** Connects where `connectAddress` says, keeping the URL's host for TLS and the Host header. */
function redirectingAgent(
  tls: buildConnector.BuildOptions,
  connectAddress: ConnectAddress,
): Dispatcher & { destroy(): Promise<void> } {
  const connect = buildConnector(tls);
  return new Agent({
    connect: (options, callback) => {
      const address = connectAddress(options.hostname, Number(options.port) || 443);
      connect({ ...options, hostname: address.host, port: String(address.port) }, callback);
    },
  });
}
