import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CertificateAndKey } from '../kube/self-signed-certificate.js';

/** host:port to listen on. */
export interface ListenAddress {
  host: string;
  port: number;
}

export type Route = () => Promise<{ status: number; body: string; contentType?: string }>;

/** A guard's refusal: what to answer instead of running the route. */
export interface Refusal {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** Checks a request before its route runs: undefined lets it through, else the refusal to send. */
export type Guard = (request: http.IncomingMessage, path: string) => Promise<Refusal | undefined>;

export interface EndpointOptions {
  /** Serve HTTPS with this certificate (plain HTTP without). */
  tls?: CertificateAndKey;
  guard?: Guard;
  /** Told of a route or guard that failed; the client gets only a 503. */
  onError?: (error: unknown) => void;
}

/** What a client hears of a failure: the status only, never the error (it may quote the apiserver). */
const UNAVAILABLE = 'Service Unavailable\n';

/** An HTTP(S) server for probes or metrics: GET on a fixed set of paths. */
export class HttpEndpoints {
  private constructor(private readonly server: http.Server | https.Server) {}

  static async listen(
    address: ListenAddress,
    routes: Record<string, Route>,
    options: EndpointOptions = {},
  ): Promise<HttpEndpoints> {
    const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
      const [path = '/'] = (request.url ?? '/').split('?');
      const route = routes[path];
      if (request.method !== 'GET' || !route) {
        response.writeHead(404).end('not found\n');
        return;
      }
      const guard = options.guard ?? (() => Promise.resolve(undefined));
      guard(request, path)
        .then(async (refusal) => refusal ?? (await route()))
        .then(
          (answer: Refusal & { contentType?: string }) =>
            response
              .writeHead(answer.status, {
                ...answer.headers,
                'Content-Type': answer.contentType ?? 'text/plain',
              })
              .end(answer.body),
          (error: unknown) => {
            options.onError?.(error);
            response.writeHead(503, { 'Content-Type': 'text/plain' }).end(UNAVAILABLE);
          },
        );
    };
    const { tls } = options;
    const server = tls
      ? https.createServer({ cert: tls.certificatePem, key: tls.keyPem }, handler)
      : http.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new HttpEndpoints(server);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Serves new connections with another certificate (a rotated one); HTTPS servers only. */
  setCertificate(tls: CertificateAndKey): void {
    if (this.server instanceof https.Server)
      this.server.setSecureContext({ cert: tls.certificatePem, key: tls.keyPem });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
