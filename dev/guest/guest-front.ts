import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { RestClient } from '../../crc-agent/rest-client.js';
import type { ClientTls } from './admin-rest.js';
import type { BundlePki } from './guest-pki.js';

interface NamedCertificate {
  names?: string[];
  servingCertificate?: { name?: string };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function subject(cert: X509Certificate, attribute: string): string[] {
  return cert.subject
    .split('\n')
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code }),
  );
}

/**
 * The guest kube-apiserver's front door, with OpenShift's behaviour where it differs from a plain
 * kube-apiserver: it serves the bundle certificate for api.crc.testing and the certificates named
 * in `apiservers/cluster` for their host names (SNI); it trusts client certificates signed by the
 * CAs in ConfigMap openshift-config/admin-kubeconfig-client-ca (read on every request, so a patch
 * takes effect at once); and it passes requests on to the real API server as the certificate's
 * user and groups (impersonation).
 */
export class GuestFront {
  /** When false, every request gets 503, as from an API server that is not up yet. */
  ready: boolean;

  private constructor(
    private readonly server: https.Server,
    readonly host: string,
    readonly port: number,
    ready: boolean,
  ) {
    this.ready = ready;
  }

  /**
   * Without a backend the front only ever answers 503 (an API server that never comes up).
   * `listen` is where it answers (a free port on 127.0.0.1 by default).
   */
  static async start(
    pki: BundlePki,
    backend?: { upstream: ClientTls; admin: RestClient },
    listen: { host: string; port: number } = { host: '127.0.0.1', port: 0 },
  ): Promise<GuestFront> {
    const holder: { front?: GuestFront } = {};
    const server = https.createServer(
      {
        cert: pki.serving.certificatePem,
        key: pki.serving.keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        SNICallback: (servername, callback) => {
          if (!backend) {
            callback(null, undefined);
            return;
          }
          namedContext(backend.admin, servername).then(
            (context) => callback(null, context),
            (error: unknown) => callback(error as Error, undefined),
          );
        },
      },
      (req, res) => {
        if (!holder.front?.ready || !backend) {
          status(
            res,
            503,
            'ServiceUnavailable',
            'the server is currently unable to handle the request',
          );
          return;
        }
        handle(req, res, backend.upstream, backend.admin).catch((error: unknown) =>
          status(res, 500, 'InternalError', String(error)),
        );
      },
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    holder.front = new GuestFront(
      server,
      listen.host,
      (server.address() as AddressInfo).port,
      backend !== undefined,
    );
    return holder.front;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function namedContext(
  admin: RestClient,
  servername: string,
): Promise<tls.SecureContext | undefined> {
  const apiServer = await admin
    .json<{ spec?: { servingCerts?: { namedCertificates?: NamedCertificate[] } } }>({
      method: 'GET',
      path: '/apis/config.openshift.io/v1/apiservers/cluster',
    })
    .catch(() => undefined);
  const named = apiServer?.spec?.servingCerts?.namedCertificates?.find((entry) =>
    entry.names?.includes(servername),
  );
  const secretName = named?.servingCertificate?.name;
  if (!secretName) return undefined;
  const secret = await admin.json<{ data?: Record<string, string> }>({
    method: 'GET',
    path: `/api/v1/namespaces/openshift-config/secrets/${secretName}`,
  });
  const data = (key: string): string => Buffer.from(secret.data?.[key] ?? '', 'base64').toString();
  return tls.createSecureContext({ cert: data('tls.crt'), key: data('tls.key') });
}

async function trustedClientCas(admin: RestClient): Promise<X509Certificate[]> {
  const configMap = await admin.json<{ data?: Record<string, string> }>({
    method: 'GET',
    path: '/api/v1/namespaces/openshift-config/configmaps/admin-kubeconfig-client-ca',
  });
  return (configMap.data?.['ca-bundle.crt']?.match(PEM_CERTIFICATE) ?? []).map(
    (pem) => new X509Certificate(pem),
  );
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  upstream: ClientTls,
  admin: RestClient,
): Promise<void> {
  const peer = (req.socket as TLSSocket).getPeerX509Certificate();
  const now = new Date();
  const trusted =
    peer !== undefined &&
    now >= new Date(peer.validFrom) &&
    now < new Date(peer.validTo) &&
    (await trustedClientCas(admin)).some((ca) => peer.checkIssued(ca) && peer.verify(ca.publicKey));
  if (!peer || !trusted) {
    status(res, 401, 'Unauthorized', 'Unauthorized');
    return;
  }
  const headers = { ...req.headers };
  for (const name of Object.keys(headers))
    if (name.startsWith('impersonate-') || name === 'authorization') delete headers[name];
  headers.host = upstream.url.host;
  headers['impersonate-user'] = subject(peer, 'CN')[0] ?? '';
  const groups = subject(peer, 'O');
  if (groups.length > 0) headers['impersonate-group'] = groups;
  const forward = https.request(
    {
      host: upstream.url.hostname,
      port: upstream.url.port,
      method: req.method,
      path: req.url,
      headers,
      ca: upstream.ca,
      cert: upstream.cert,
      key: upstream.key,
      servername: 'localhost',
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on('error', (error) => status(res, 502, 'InternalError', error.message));
  req.pipe(forward);
}
