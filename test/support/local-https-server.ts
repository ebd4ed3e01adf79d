import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../crc-agent/certificates.js';

/**
 * An HTTPS server on loopback with a certificate of its own for `localhost` (`ca` is what a client
 * trusts), for tests that stand in for a server outside the cluster. Given another `hostname`, the
 * certificate and the URL name it instead: a name no resolver knows, which only a proxy that maps
 * it to loopback can reach.
 */
export class LocalHttpsServer {
  readonly ca: string;
  private readonly server: https.Server;

  private constructor(
    handler: (request: IncomingMessage, response: ServerResponse) => void,
    options: https.ServerOptions,
    private readonly hostname: string,
  ) {
    const pair = issueCertificate({
      commonName: hostname,
      isCa: true,
      keyCertSign: true,
      serverAuth: true,
      dnsNames: [hostname],
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
    hostname = 'localhost',
  ): Promise<LocalHttpsServer> {
    const server = new LocalHttpsServer(handler, options, hostname);
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    return server;
  }

  /** `https://localhost:<port>` (or the hostname given) */
  get url(): string {
    return `https://${this.hostname}:${this.port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
