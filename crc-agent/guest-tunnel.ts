import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { ConnectionFactory } from './rest-client.js';

export const GUEST_API_HOST = 'api.crc.testing';
export const GUEST_API_PORT = 6443;

/** Opens a raw channel to host:port from the guest's side (an SSH direct-tcpip channel). */
export interface TunnelOpener {
  forwardOut(host: string, port: number): Promise<Duplex>;
}

export interface GuestApiTls {
  /** The bundle's server CA from /opt/kubeconfig, never the client CA. */
  serverCaPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/** Throws unless the client certificate and key belong together. */
export function checkClientPair(certPem: string, keyPem: string): void {
  const matches = ((): boolean => {
    try {
      return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
    } catch {
      return false;
    }
  })();
  if (!matches) throw new Error('the identity client certificate and client key do not match');
}

/**
 * Every connection to the guest API is a direct-tcpip channel to api.crc.testing:6443 (resolved
 * by the guest's sshd through guest DNS), wrapped in TLS with SNI api.crc.testing, verified
 * against the bundle server CA, authenticated with the identity's client certificate.
 */
export function guestApiConnections(tunnel: TunnelOpener, creds: GuestApiTls): ConnectionFactory {
  checkClientPair(creds.clientCertPem, creds.clientKeyPem);
  return async () => {
    const channel = await tunnel.forwardOut(GUEST_API_HOST, GUEST_API_PORT);
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        socket: channel,
        servername: GUEST_API_HOST,
        ca: creds.serverCaPem,
        cert: creds.clientCertPem,
        key: creds.clientKeyPem,
      });
      const onError = (error: Error): void => {
        channel.destroy();
        reject(error);
      };
      socket.once('secureConnect', () => {
        socket.removeListener('error', onError);
        resolve(socket);
      });
      socket.once('error', onError);
    });
  };
}
