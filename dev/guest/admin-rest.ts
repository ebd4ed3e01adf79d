import tls from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../crc-agent/rest-client.js';

/** The TLS material of a kubeconfig's current context, as PEM text. */
export interface ClientTls {
  url: URL;
  ca: string;
  cert: string;
  key: string;
}

const fromB64 = (data: string | undefined): string => Buffer.from(data ?? '', 'base64').toString();

export function clientTlsFromKubeconfig(kubeconfigPath: string): ClientTls {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const cluster = kubeConfig.getCurrentCluster();
  const user = kubeConfig.getCurrentUser();
  if (!cluster || !user) throw new Error(`${kubeconfigPath} has no current cluster and user`);
  return {
    url: new URL(cluster.server),
    ca: fromB64(cluster.caData),
    cert: fromB64(user.certData),
    key: fromB64(user.keyData),
  };
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
