import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent, request } from 'undici';
import type { GuestAccess } from '../kube/strict-kubeconfig.js';

/** The most of one guest answer that is read; a longer one is refused, not buffered. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** GET one guest API path as JSON, within `timeoutMs`. */
export type GuestGet = (path: string) => Promise<unknown>;

/**
 * Reads from a guest API with what the strict reader kept of its kubeconfig (one https server,
 * its CA, one inline credential): nothing from the kubeconfig picks a proxy, a file or a program.
 * The caller's own HTTPS_PROXY and NO_PROXY apply, as for the operator's readiness probe.
 */
export function guestGetter(
  access: GuestAccess,
  timeoutMs: number,
): { get: GuestGet; close: () => Promise<void> } {
  const credentials = access.credentials;
  const hostname = new URL(access.server).hostname.replace(/^\[|\]$/g, '');
  const tls = {
    ca: access.ca,
    ...('token' in credentials ? {} : { cert: credentials.cert, key: credentials.key }),
    // TLS names a host, never an address (RFC 6066); an address is checked against the IP SANs.
    ...(isIP(hostname) ? {} : { servername: hostname }),
    timeout: timeoutMs,
    allowH2: false,
  };
  const dispatcher: Dispatcher & { destroy(): Promise<void> } = new EnvHttpProxyAgent({
    connect: tls,
    requestTls: tls,
  });
  const headers: Record<string, string> = { accept: 'application/json' };
  if ('token' in credentials) headers.authorization = `Bearer ${credentials.token}`;
  const get: GuestGet = async (path) => {
    const response = await request(new URL(access.server + path), {
      method: 'GET',
      headers,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > MAX_ANSWER_BYTES) {
        response.body.destroy();
        throw new Error(`${path}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw new Error(`${path}: HTTP ${response.statusCode}`);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  };
  return { get, close: () => dispatcher.destroy() };
}
