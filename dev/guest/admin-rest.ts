import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { parseKubeconfig } from '../../client/kube/kubeconfig.js';
import { RestClient } from '../../crc-agent/rest-client.js';

/** The TLS material of a kubeconfig's current context, as PEM text. */
export interface ClientTls {
  url: URL;
  ca: string;
  cert: string;
  key: string;
}

export function clientTlsFromKubeconfig(kubeconfigPath: string): ClientTls {
  const context = parseKubeconfig(readFileSync(kubeconfigPath, 'utf8'));
  if (!context.ca || !context.cert || !context.key)
    throw new Error(`${kubeconfigPath} has no CA, client certificate and key`);
  return { url: new URL(context.server), ca: context.ca, cert: context.cert, key: context.key };
}

/** A JSON REST client that talks TLS to host:port directly (no tunnel). */
export function directRestClient(target: ClientTls, servername?: string): RestClient {
  return new RestClient(
    () =>
      new Promise((resolve, reject) => {
        const socket = tls.connect({
          host: target.url.hostname,
          port: Number(target.url.port),
          ca: target.ca,
          cert: target.cert,
          key: target.key,
          servername: servername ?? 'localhost',
        });
        socket.once('secureConnect', () => resolve(socket));
        socket.once('error', reject);
      }),
    target.url.host,
  );
}
