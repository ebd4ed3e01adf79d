import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy between the operator and the kube-apiserver (TLS passes through untouched: the
 * apiserver's certificate names 127.0.0.1, whatever the port) that can hold, for a while, every
 * byte the apiserver sends the operator: watch events arrive late and in one burst, as over a
 * stalled network path, while the apiserver, the platform and the soak's own watches go on
 * (docs/adr/0055-chaos-soak.md). A connection the apiserver ends ends here too.
 */
export class WatchDelayProxy {
  private readonly connections = new Set<{
    held: Buffer[];
    client: net.Socket;
    upstream: net.Socket;
  }>();
  private holding = false;
  private releaseTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly server: net.Server,
    private readonly upstream: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.connect(client));
  }

  static async start(upstreamServer: string): Promise<WatchDelayProxy> {
    const url = new URL(upstreamServer);
    const proxy = new WatchDelayProxy(net.createServer(), {
      host: url.hostname,
      port: Number(url.port),
    });
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** The URL the operator is given as its apiserver. */
  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Holds what the apiserver sends for `ms`, then delivers it all; resolves once delivered. */
  async hold(ms: number): Promise<void> {
    this.holding = true;
    await new Promise<void>((resolve) => {
      this.releaseTimer = setTimeout(resolve, ms);
    });
    this.release();
  }

  async stop(): Promise<void> {
    clearTimeout(this.releaseTimer);
    for (const { client, upstream } of this.connections) {
      client.destroy();
      upstream.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }

  private release(): void {
    this.holding = false;
    for (const connection of this.connections)
      for (const chunk of connection.held.splice(0)) connection.client.write(chunk);
  }

  private connect(client: net.Socket): void {
    const upstream = net.connect(this.upstream.port, this.upstream.host);
    const connection = { held: [] as Buffer[], client, upstream };
    this.connections.add(connection);
    const end = (): void => {
      this.connections.delete(connection);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (this.holding) connection.held.push(chunk);
      else client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  }
}
