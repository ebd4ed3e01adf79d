import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** host:port to listen on. */
export interface ListenAddress {
  host: string;
  port: number;
}

export type Route = () => Promise<{ status: number; body: string; contentType?: string }>;

/** A plain HTTP server for probes or metrics: GET on a fixed set of paths. */
export class HttpEndpoints {
  private constructor(private readonly server: http.Server) {}

  static async listen(
    address: ListenAddress,
    routes: Record<string, Route>,
  ): Promise<HttpEndpoints> {
    const server = http.createServer((request, response) => {
      const [path = '/'] = (request.url ?? '/').split('?');
      const route = routes[path];
      if (request.method !== 'GET' || !route) {
        response.writeHead(404).end('not found\n');
        return;
      }
      route().then(
        ({ status, body, contentType }) =>
          response.writeHead(status, { 'Content-Type': contentType ?? 'text/plain' }).end(body),
        (error: unknown) => response.writeHead(500).end(`${String(error)}\n`),
      );
    });
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

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
