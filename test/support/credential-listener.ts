import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { issueCertificate } from '../../crc-agent/certificates.js';

/** One request that reached the listener. */
export interface Received {
  method: string;
  path: string;
  authorization?: string;
  /** Whether the client presented a certificate. */
  clientCertificate: boolean;
}

/**
 * An HTTPS server on loopback that a tenant names as "their" API server: it logs every request
 * with its Authorization header (and whether a client certificate came), and answers 200, as an
 * attacker's server would to look healthy. `ca` is what a crafted kubeconfig trusts.
 */
export class CredentialListener {
  readonly received: Received[] = [];
  private readonly server: https.Server;
  readonly ca: string;

  private constructor() {
    const pair = issueCertificate({
      commonName: 'localhost',
      isCa: true,
      keyCertSign: true,
      serverAuth: true,
      dnsNames: ['localhost'],
      validityDays: 1,
    });
    this.ca = pair.certificatePem;
    this.server = https.createServer(
      { cert: pair.certificatePem, key: pair.keyPem, requestCert: true, rejectUnauthorized: false },
      (request, response) => this.record(request, response),
    );
  }

  static async start(): Promise<CredentialListener> {
    const listener = new CredentialListener();
    await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
    return listener;
  }

  /** `https://localhost:<port>`: the server a crafted kubeconfig names. */
  get url(): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private record(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket as TLSSocket;
    this.received.push({
      method: request.method ?? '',
      path: request.url ?? '',
      authorization: request.headers.authorization,
      clientCertificate: Object.keys(socket.getPeerCertificate() ?? {}).length > 0,
    });
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
}
