import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../crc-agent/certificates.js';

/**
 * An HTTPS server on loopback with a certificate of its own for `localhost` (`ca` is what a client
 * trusts), for tests that stand in for a server outside the cluster.
 */
export class LocalHttpsServer {
  readonly ca: string;
  private readonly server: https.Server;

  private constructor(
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    options: https.ServerOptions,
  ) {
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
      { ...options, cert: pair.certificatePem, key: pair.keyPem },
      handler,
    );
  }

  static async start(
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    options: https.ServerOptions = {},
  ): Promise<LocalHttpsServer> {
    const server = new LocalHttpsServer(handler, options);
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** `https://localhost:<port>` */
  get url(): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
