import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { AdminAccess } from '../../dev/support/admin-access.js';
import { adminAccessFromText } from '../../dev/support/admin-access.js';
import { stringify } from 'yaml';
import { issueCertificate } from '../../crc-agent/certificates.js';
import type { KubeconfigContext } from '../../client/kube/kubeconfig.js';
import { parseKubeconfig } from '../../client/kube/kubeconfig.js';
import { testEnv } from './test-env.js';

/** One request that reached the proxy. */
export interface ProxiedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** When it arrived (Date.now()). */
  at: number;
}

/**
 * What the proxy does with a request: forward it, answer it itself, forward it and drop the
 * answer, or hold it without ever answering (a stalled apiserver).
 */
export type ProxyVerdict =
  | { kind: 'forward' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'drop-response' }
  | { kind: 'stall' };

const FORWARD: ProxyVerdict = { kind: 'forward' };

/**
 * What an overloaded apiserver does to a request, by how a test names it: priority and fairness
 * answers 429, or the request waits and never gets an answer.
 */
export const OVERLOADED: Record<string, ProxyVerdict> = {
  'answered with 429': {
    kind: 'answer',
    status: 429,
    headers: { 'retry-after': '1' },
    body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 429 },
  },
  'never answered': { kind: 'stall' },
};

/**
 * An HTTPS proxy on 127.0.0.1 in front of the test control plane's apiserver, for faults that a
 * real network has: answers of its own to chosen requests (429 to a Lease renewal), a request that
 * reaches the apiserver whose response is then lost, a request never answered, and watch
 * streams that arrive late. It ends
 * TLS itself (it has to see the requests) and speaks HTTP/1.1 to its clients. Upstream it passes
 * a client's bearer token on, and a client without one is the test's admin.
 */
export class ApiProxy {
  /** Decides for every request; forwards everything by default. */
  route: (request: ProxiedRequest) => ProxyVerdict = () => FORWARD;
  /** Every chunk of every watch response is held this long before it goes on (in order). */
  watchDelayMs = 0;
  readonly requests: ProxiedRequest[] = [];

  private constructor(
    private readonly server: https.Server,
    private readonly upstream: KubeconfigContext,
    private readonly agents: { admin: https.Agent; bearer: https.Agent },
    private readonly caPem: string,
  ) {}

  static async start(): Promise<ApiProxy> {
    const upstream = parseKubeconfig(await readFile(testEnv('kubeconfig'), 'utf8'));
    const ca = issueCertificate({
      commonName: 'guestcluster test proxy CA',
      isCa: true,
      keyCertSign: true,
      validityDays: 1,
    });
    const serving = issueCertificate({
      commonName: 'localhost',
      issuer: ca,
      isCa: false,
      serverAuth: true,
      dnsNames: ['localhost'],
      validityDays: 1,
    });
    const agents = {
      admin: new https.Agent({
        keepAlive: true,
        ca: upstream.ca,
        cert: upstream.cert,
        key: upstream.key,
      }),
      bearer: new https.Agent({ keepAlive: true, ca: upstream.ca }),
    };
    const server = https.createServer({ cert: serving.certificatePem, key: serving.keyPem });
    const proxy = new ApiProxy(server, upstream, agents, ca.certificatePem);
    server.on('request', (request, response) => proxy.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** A kubeconfig that reaches the apiserver through this proxy (as the test's admin, unless `token`). */
  kubeconfig(token?: string): string {
    return stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'proxy',
          cluster: {
            server: `https://127.0.0.1:${this.port}`,
            'certificate-authority-data': Buffer.from(this.caPem).toString('base64'),
            'tls-server-name': 'localhost',
          },
        },
      ],
      // The proxy asks for no client certificate: the admin's goes unsent, the proxy's own is used.
      users: [{ name: 'proxy', user: token ? { token } : this.adminCertificate() }],
      contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'proxy' } }],
      'current-context': 'proxy',
    });
  }

  private adminCertificate(): Record<string, string> {
    const base64 = (pem = ''): string => Buffer.from(pem).toString('base64');
    return {
      'client-certificate-data': base64(this.upstream.cert),
      'client-key-data': base64(this.upstream.key),
    };
  }

  /** The same, as the access the test helpers take. */
  kubeConfig(): AdminAccess {
    return adminAccessFromText(this.kubeconfig());
  }

  /** The CA that signs the proxy's serving certificate, base64 (as a kubeconfig holds it). */
  get caData(): string {
    return Buffer.from(this.caPem).toString('base64');
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agents.admin.destroy();
    this.agents.bearer.destroy();
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const seen: ProxiedRequest = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      at: Date.now(),
    };
    this.requests.push(seen);
    const verdict = this.route(seen);
    if (verdict.kind === 'stall') return void request.resume();
    if (verdict.kind === 'answer') {
      request.resume();
      response.writeHead(verdict.status, {
        'content-type': 'application/json',
        ...verdict.headers,
      });
      response.end(verdict.body === undefined ? '' : JSON.stringify(verdict.body));
      return;
    }
    this.forward(request, response, verdict.kind === 'drop-response');
  }

  private forward(request: IncomingMessage, response: ServerResponse, drop: boolean): void {
    const headers = { ...request.headers };
    const authorization = headers.authorization;
    delete headers.host;
    delete headers.authorization;
    const target = new URL(this.upstream.server);
    const outgoing = https.request({
      host: target.hostname,
      port: target.port,
      method: request.method,
      path: request.url,
      headers: authorization ? { ...headers, authorization } : headers,
      agent: authorization ? this.agents.bearer : this.agents.admin,
    });
    outgoing.on('response', (answer) => {
      if (drop) {
        // The apiserver has acted; the client never hears of it.
        answer.resume();
        request.socket.destroy();
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      const watch = new URL(request.url ?? '/', 'https://proxy').searchParams.get('watch');
      if (watch === 'true' && this.watchDelayMs > 0) this.delayed(answer, response);
      else answer.pipe(response);
    });
    outgoing.on('error', () => response.destroy());
    response.on('close', () => outgoing.destroy());
    request.pipe(outgoing);
  }

  /** Passes a watch stream on, each chunk `watchDelayMs` after it came, in order. */
  private delayed(answer: IncomingMessage, response: ServerResponse): void {
    let last = Promise.resolve();
    const later = (write: () => void): void => {
      const due = Date.now() + this.watchDelayMs;
      last = last.then(
        () =>
          new Promise<void>((resolve) =>
            setTimeout(
              () => {
                write();
                resolve();
              },
              Math.max(0, due - Date.now()),
            ),
          ),
      );
    };
    answer.on('data', (chunk: Buffer) => later(() => void response.write(chunk)));
    answer.on('end', () => later(() => response.end()));
  }
}
