import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent, buildConnector, request } from 'undici';
import type { GuestAccess } from '../../kube/strict-kubeconfig.js';
import type { ConnectAddress } from '../clusterinstance/core/guest-api-probe.js';

const REQUEST_TIMEOUT_MS = 10_000;
/** A list answer larger than this is refused: a guest cannot make the operator hold more. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** One answer of a guest API: its status and parsed JSON body (undefined when not JSON). */
export interface GuestAnswer {
  status: number;
  body: unknown;
}

/**
 * A few GETs against one guest API with what the operator holds for it (never a kubeconfig as
 * read from a Secret: no field of one can make it read a file, run a program or pick a proxy),
 * over one connection pool, closed by `close`. It also keeps the serving certificate's expiry as
 * the TLS handshake showed it, when it connects directly: through a cluster-wide egress proxy
 * (HTTPS_PROXY) the tunnel's TLS is undici's own and the certificate is not seen.
 */
export class GuestConnection {
  private servingNotAfter: number | undefined;
  private readonly dispatcher: Dispatcher & { destroy(): Promise<void> };

  constructor(
    private readonly access: GuestAccess,
    connectAddress?: ConnectAddress,
  ) {
    const url = new URL(access.server);
    const credentials = access.credentials;
    const tls = {
      ca: access.ca,
      ...('token' in credentials ? {} : { cert: credentials.cert, key: credentials.key }),
      servername: url.hostname,
      timeout: REQUEST_TIMEOUT_MS,
      // HTTP/1.1: over HTTP/2, a request that times out while the response headers are on the
      // way leaves a stream the late headers bring back with no 'error' listener, and destroying
      // the connection right after, as close() does, would then end the process.
      allowH2: false,
    } as buildConnector.BuildOptions;
    // The proxy variables EnvHttpProxyAgent reads (for https, the http proxy when no https one).
    const env = process.env;
    const proxied =
      !connectAddress && !!(env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy);
    this.dispatcher = proxied
      ? new EnvHttpProxyAgent({ connect: tls, requestTls: tls })
      : this.directAgent(tls, connectAddress);
  }

  /** The serving certificate's notAfter (ms), once a direct connection was made. */
  get servingCertificateNotAfter(): number | undefined {
    return this.servingNotAfter;
  }

  async get(path: string): Promise<GuestAnswer> {
    const credentials = this.access.credentials;
    const response = await request(new URL(this.access.server + path), {
      method: 'GET',
      headers: {
        accept: 'application/json',
        ...('token' in credentials ? { authorization: `Bearer ${credentials.token}` } : {}),
      },
      dispatcher: this.dispatcher,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const length = Number(response.headers['content-length'] ?? 0);
    if (length > MAX_BODY_BYTES) {
      await response.body.dump();
      throw new Error(`GET ${path} answered ${length} bytes, more than the check reads`);
    }
    const text = await response.body.text();
    if (text.length > MAX_BODY_BYTES)
      throw new Error(`GET ${path} answered more than the check reads`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body };
  }

  close(): Promise<void> {
    return this.dispatcher.destroy();
  }

  /** Connects where `connectAddress` says (else to the name), noting the peer's certificate. */
  private directAgent(
    tls: buildConnector.BuildOptions,
    connectAddress: ConnectAddress | undefined,
  ): Agent {
    const connect = buildConnector(tls);
    return new Agent({
      connect: (options, callback) => {
        const address = connectAddress?.(options.hostname, Number(options.port) || 443) ?? {
          host: options.hostname,
          port: Number(options.port) || 443,
        };
        connect(
          { ...options, hostname: address.host, port: String(address.port) },
          (error, socket) => {
            if (!error && socket) this.notePeer(socket as TLSSocket);
            // The callback's type pairs an error with no socket; undici calls it either way.
            (callback as (error: Error | null, socket: unknown) => void)(error, socket);
          },
        );
      },
    });
  }

  private notePeer(socket: TLSSocket): void {
    const raw = socket.getPeerX509Certificate?.();
    const notAfter = raw ? Date.parse(raw.validTo) : NaN;
    if (!Number.isNaN(notAfter)) this.servingNotAfter = notAfter;
  }
}

/** A PEM certificate's notAfter (ms), or undefined when it cannot be read. */
export function certificateNotAfter(pem: string): number | undefined {
  try {
    const notAfter = Date.parse(new X509Certificate(pem).validTo);
    return Number.isNaN(notAfter) ? undefined : notAfter;
  } catch {
    return undefined;
  }
}
