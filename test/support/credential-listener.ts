import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { LocalHttpsServer } from './local-https-server.js';

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
  private server!: LocalHttpsServer;

  static async start(): Promise<CredentialListener> {
    const listener = new CredentialListener();
    listener.server = await LocalHttpsServer.start(
      (request, response) => listener.record(request, response),
      { requestCert: true, rejectUnauthorized: false },
    );
    return listener;
  }

  /** What a crafted kubeconfig trusts. */
  get ca(): string {
    return this.server.ca;
  }

  /** `https://localhost:<port>`: the server a crafted kubeconfig names. */
  get url(): string {
    return this.server.url;
  }

  stop(): Promise<void> {
    return this.server.stop();
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
