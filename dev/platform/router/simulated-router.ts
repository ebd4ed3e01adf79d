import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { INGRESS_CONFIGS, ROUTES } from '../../../operator/api/platform-resources.js';
import { isAlreadyExists, isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { SimulatorHost } from '../host/simulator-host.js';
import { readConnectRequest } from './http-connect.js';
import { readServerName } from './tls-sni.js';
import { HeldConnections } from './held-connections.js';

export interface RouteObject extends KubeObject {
  spec?: { host?: string; to?: { name?: string }; port?: { targetPort?: number | string } };
  status?: { ingress?: { host?: string; conditions?: { type: string; status: string }[] }[] };
}

export type Backend = { host: string; port: number };

export interface SimulatedRouterOptions {
  kubeConfig: ClusterAccess;
  /** Routes in namespaces for which this is false are left to other routers (shared control plane). */
  servesNamespace: (namespace: string) => boolean;
  /**
   * Where a Route's Service answers (the simulated platform knows which loopback port stands for
   * it); `hold` for failure injection: the connection is taken and never answered (held).
   */
  backend: (route: RouteObject) => Backend | 'hold' | undefined;
  /** The ingress domain set in ingresses.config.openshift.io/cluster when there is none yet. */
  domain?: string;
  /**
   * Failure injection: a Route for which this is false is never admitted (no status.ingress, as
   * when no router shard selects it) and never passes traffic.
   */
  admits?: (route: RouteObject) => boolean;
}

const DEFAULT_DOMAIN = 'apps.management.guestcluster.test';

/**
 * The OpenShift router, simulated: admits Routes (status.ingress Admitted=True, first come first
 * served per host), and passes TLS through by SNI on 127.0.0.1 to the Route's backend, so a
 * client that connects here with `tls-server-name` (or a host override) reaches the Route host
 * without DNS. The same port also serves as an HTTPS proxy (HTTP CONNECT), so that a client
 * with `HTTPS_PROXY` set to it reaches Route hosts with an unchanged kubeconfig.
 */
export class SimulatedRouter {
  private constructor(
    private readonly simulator: SimulatorHost,
    private readonly server: net.Server,
    private readonly connections: { sockets: Set<net.Socket>; held: HeldConnections },
    readonly port: number,
    readonly domain: string,
  ) {}

  /** The connections of Routes whose backend is `hold`. */
  get held(): HeldConnections {
    return this.connections.held;
  }

  static async start(options: SimulatedRouterOptions): Promise<SimulatedRouter> {
    const simulator = new SimulatorHost(options.kubeConfig);
    const domain = await ensureIngressDomain(simulator, options.domain ?? DEFAULT_DOMAIN);
    const routes = simulator.informer<RouteObject>(ROUTES);
    simulator.addController({
      name: 'simulated-router',
      forType: ROUTES,
      reconcile: async (key) => {
        const route = routes.get(key);
        if (!route || !options.servesNamespace(route.metadata!.namespace!)) return {};
        if (options.admits && !options.admits(route)) return {};
        await admit(simulator, route, routes.list());
      },
    });
    const sockets = new Set<net.Socket>();
    const held = new HeldConnections();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      let chunks: Buffer[] = [];
      const onData = (chunk: Buffer): void => {
        chunks.push(chunk);
        const tunnel = readConnectRequest(Buffer.concat(chunks));
        if (tunnel === undefined) return;
        if (tunnel) {
          // An HTTPS proxy client (HTTPS_PROXY): the TLS handshake follows the tunnel's set-up.
          socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
          chunks = [tunnel.rest];
        }
        const hello = Buffer.concat(chunks);
        const name = readServerName(hello);
        if (name === undefined) return;
        socket.off('data', onData);
        const route = name
          ? routes.list((r) => r.spec?.host === name && isAdmitted(r))[0]
          : undefined;
        const backend =
          route && options.servesNamespace(route.metadata!.namespace!)
            ? options.backend(route)
            : undefined;
        if (!backend) {
          socket.destroy();
          return;
        }
        if (backend === 'hold') {
          held.hold(route!.metadata!.namespace!, route!.metadata!.name!, socket);
          return;
        }
        const upstream = net.connect(backend.port, backend.host, () => {
          sockets.add(upstream);
          upstream.on('close', () => sockets.delete(upstream));
          upstream.write(hello);
          socket.pipe(upstream).pipe(socket);
        });
        upstream.on('error', () => socket.destroy());
        socket.on('error', () => upstream.destroy());
      };
      socket.on('data', onData);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await simulator.start();
    return new SimulatedRouter(
      simulator,
      server,
      { sockets, held },
      (server.address() as AddressInfo).port,
      domain,
    );
  }

  /** Where the router's port 443 is, for a client that resolves Route hosts to it. */
  get address(): Backend {
    return { host: '127.0.0.1', port: this.port };
  }

  /** The router as an HTTPS proxy, for `HTTPS_PROXY`. */
  get proxyUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await this.simulator.stop();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    // Open passthrough connections end with the router.
    for (const socket of this.connections.sockets) socket.destroy();
    await closed;
  }
}

function isAdmitted(route: RouteObject): boolean {
  return !!route.status?.ingress?.some((i) =>
    i.conditions?.some((c) => c.type === 'Admitted' && c.status === 'True'),
  );
}

/** Admits a Route unless an older one already holds its host (as the router does). */
async function admit(
  simulator: SimulatorHost,
  route: RouteObject,
  all: RouteObject[],
): Promise<void> {
  const host = route.spec?.host;
  if (!host || isAdmitted(route)) return;
  const older = all.find(
    (r) =>
      r !== route &&
      r.spec?.host === host &&
      Date.parse(r.metadata!.creationTimestamp!) < Date.parse(route.metadata!.creationTimestamp!),
  );
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition = older
    ? { type: 'Admitted', status: 'False', reason: 'HostAlreadyClaimed', lastTransitionTime: now }
    : { type: 'Admitted', status: 'True', lastTransitionTime: now };
  try {
    await simulator.client.updateStatus(ROUTES, {
      ...route,
      status: {
        ingress: [{ host, routerName: 'default', wildcardPolicy: 'None', conditions: [condition] }],
      },
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** The cluster's ingress domain: the one configured, else `fallback`, which is then configured. */
async function ensureIngressDomain(simulator: SimulatorHost, fallback: string): Promise<string> {
  try {
    await simulator.client.create(INGRESS_CONFIGS, {
      apiVersion: INGRESS_CONFIGS.apiVersion,
      kind: INGRESS_CONFIGS.kind,
      metadata: { name: 'cluster' },
      spec: { domain: fallback },
    } as KubeObject);
    return fallback;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const existing = await simulator.client.get<KubeObject & { spec?: { domain?: string } }>(
    INGRESS_CONFIGS,
    'cluster',
  );
  return existing.spec?.domain || fallback;
}
