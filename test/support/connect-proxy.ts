import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';

/**
 * An HTTP proxy on loopback that tunnels CONNECT requests, as a cluster-wide egress proxy does
 * for HTTPS: the only way to names it maps (`routes`, `host:port` to a loopback port), which no
 * resolver knows. Every CONNECT is recorded, so a test can tell that a client went through it;
 * the tunnelled bytes are TLS, which it cannot read.
 */
export class ConnectProxy {
  /** The authorities asked for, in order (`host:port`), refused ones included. */
  readonly connects: string[] = [];
  private readonly server = http.createServer((_, response) => {
    response.writeHead(405).end('only CONNECT');
  });
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly routes: ReadonlyMap<string, number>) {
    this.server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) =>
      this.tunnel(request.url ?? '', client, head),
    );
  }

  static async start(routes: ReadonlyMap<string, number>): Promise<ConnectProxy> {
    const proxy = new ConnectProxy(routes);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** `http://127.0.0.1:<port>`, as HTTPS_PROXY takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private tunnel(authority: string, client: net.Socket, head: Buffer): void {
    this.connects.push(authority);
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    const port = this.routes.get(authority);
    if (port === undefined) {
      client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  }
}
