import { createPrivateKey, X509Certificate } from 'node:crypto';
import { parseDocument, stringify } from 'yaml';

/**
 * Kubeconfigs the operator takes from Secrets (a crc-agent handoff, HyperShift's admin
 * kubeconfig) are data a tenant may have written, never configuration: this reader accepts one
 * cluster, one user and one context, an https server equal to the one the operator expects, and
 * inline credentials only. Anything that would make the operator read a file, run a program, use
 * a proxy, skip TLS verification or impersonate is refused, naming the field. The general loader
 * (kubeconfig.ts, for the operator's and the Action's own access) is a different function.
 */

/** A kubeconfig reduced to what may be used: one server, its CA, one inline credential. */
export interface GuestAccess {
  /** `https://host[:port]`, as the operator expects it. */
  server: string;
  /** The CA certificate (PEM) the server is verified with. */
  ca: string;
  credentials: { cert: string; key: string } | { token: string };
}

export interface KubeconfigExpectations {
  /** The servers allowed (`https://host`, `https://host:port`; port 443 may be left out). */
  servers: string[];
  /** The CA (PEM) it must carry; absent: any inline certificate (the caller does not use it). */
  ca?: string;
}

/** A kubeconfig refused by the strict reader; `field` names where (never a credential value). */
export class KubeconfigRejectedError extends Error {
  override name = 'KubeconfigRejectedError';
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}

type Fields = Record<string, unknown>;

const ALLOWED = {
  top: ['apiVersion', 'kind', 'clusters', 'users', 'contexts', 'current-context', 'preferences'],
  cluster: ['server', 'certificate-authority-data'],
  user: ['client-certificate-data', 'client-key-data', 'token'],
  context: ['cluster', 'user', 'namespace'],
};
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const reject = (field: string, problem: string): never => {
  throw new KubeconfigRejectedError(field, problem);
};

function mapping(value: unknown, field: string): Fields {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    reject(field, 'must be a mapping');
  return value as Fields;
}

/** Only the allowed keys; the first other one is named (exec, tokenFile, proxy-url, …). */
function onlyKeys(fields: Fields, allowed: string[], field: string): void {
  const other = Object.keys(fields).find((key) => !allowed.includes(key));
  if (other !== undefined)
    reject(`${field}.${other}`, `is not allowed (allowed: ${allowed.join(', ')})`);
}

function text(fields: Fields, key: string, field: string): string {
  const value = fields[key];
  if (typeof value !== 'string' || value === '') reject(`${field}.${key}`, 'must be set');
  return value as string;
}

function decoded(fields: Fields, key: string, field: string): string {
  const value = text(fields, key, field).replace(/\s+/g, '');
  if (!BASE64.test(value)) reject(`${field}.${key}`, 'is not base64');
  return Buffer.from(value, 'base64').toString('utf8');
}

/** The one entry of a list, with its inner mapping (`cluster`, `user` or `context`). */
function single(file: Fields, list: string, inner: string): { name: string; fields: Fields } {
  const entries = file[list];
  if (!Array.isArray(entries) || entries.length !== 1)
    reject(
      list,
      `must have exactly one entry (has ${Array.isArray(entries) ? entries.length : 0})`,
    );
  const entry = mapping((entries as unknown[])[0], `${list}[0]`);
  onlyKeys(entry, ['name', inner], `${list}[0]`);
  const name = typeof entry.name === 'string' ? entry.name : '';
  return { name, fields: mapping(entry[inner], `${list}[0].${inner}`) };
}

/** `https://host[:port]` with the default port left out, lower-case host; undefined otherwise. */
export function canonicalServer(server: string): string | undefined {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return undefined;
  if (url.pathname !== '/' || url.search || url.hash) return undefined;
  return `https://${url.host}`;
}

function checkServer(cluster: Fields, expected: string[]): string {
  const field = 'clusters[0].cluster.server';
  const server = text(cluster, 'server', 'clusters[0].cluster');
  const canonical = canonicalServer(server);
  if (!canonical) reject(field, `is "${server}", not https://<host>[:<port>]`);
  if (!expected.some((allowed) => canonicalServer(allowed) === canonical))
    reject(field, `is "${server}", not the instance's endpoint ${expected.join(' or ')}`);
  return canonical!;
}

function certificate(pem: string, field: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    return reject(field, 'is not a PEM certificate');
  }
}

function checkCa(cluster: Fields, expected: string | undefined): string {
  const field = 'clusters[0].cluster.certificate-authority-data';
  const ca = decoded(cluster, 'certificate-authority-data', 'clusters[0].cluster');
  const given = certificate(ca, field);
  if (expected !== undefined && !given.raw.equals(new X509Certificate(expected).raw))
    reject(field, 'is not the CA the operator issued for this instance');
  return ca;
}

function checkCredentials(user: Fields): GuestAccess['credentials'] {
  const field = 'users[0].user';
  if (user.token !== undefined) {
    if (user['client-certificate-data'] !== undefined || user['client-key-data'] !== undefined)
      reject(field, 'must hold a token or a client certificate and key, not both');
    const token = text(user, 'token', field);
    if (/\s/.test(token)) reject(`${field}.token`, 'must not contain white space');
    return { token };
  }
  const cert = decoded(user, 'client-certificate-data', field);
  const key = decoded(user, 'client-key-data', field);
  const parsed = certificate(cert, `${field}.client-certificate-data`);
  let matches = false;
  try {
    matches = parsed.checkPrivateKey(createPrivateKey(key));
  } catch {
    reject(`${field}.client-key-data`, 'is not a PEM private key');
  }
  if (!matches) reject(`${field}.client-key-data`, 'does not match client-certificate-data');
  return { cert, key };
}

function parse(text: string): Fields {
  const document = parseDocument(text, { prettyErrors: false });
  // The parser's own messages quote the offending line, which may hold a credential.
  if (document.errors.length > 0) reject('kubeconfig', 'is not valid YAML');
  return mapping(document.toJS() as unknown, 'kubeconfig');
}

/** Reads a kubeconfig from a Secret strictly; throws KubeconfigRejectedError naming the field. */
export function readStrictKubeconfig(text: string, expected: KubeconfigExpectations): GuestAccess {
  const file = parse(text);
  onlyKeys(file, ALLOWED.top, 'kubeconfig');
  const cluster = single(file, 'clusters', 'cluster');
  const user = single(file, 'users', 'user');
  const context = single(file, 'contexts', 'context');
  onlyKeys(cluster.fields, ALLOWED.cluster, 'clusters[0].cluster');
  onlyKeys(user.fields, ALLOWED.user, 'users[0].user');
  onlyKeys(context.fields, ALLOWED.context, 'contexts[0].context');
  if (context.fields.cluster !== cluster.name)
    reject('contexts[0].context.cluster', 'must name clusters[0]');
  if (context.fields.user !== user.name) reject('contexts[0].context.user', 'must name users[0]');
  const current = file['current-context'];
  if (current !== undefined && current !== context.name)
    reject('current-context', 'must name contexts[0]');
  return {
    server: checkServer(cluster.fields, expected.servers),
    ca: checkCa(cluster.fields, expected.ca),
    credentials: checkCredentials(user.fields),
  };
}

const b64 = (value: string): string => Buffer.from(value).toString('base64');

/** The kubeconfig the operator publishes: written from scratch, one cluster, user and context. */
export function writeKubeconfig(access: GuestAccess, name: string): string {
  const user =
    'token' in access.credentials
      ? { token: access.credentials.token }
      : {
          'client-certificate-data': b64(access.credentials.cert),
          'client-key-data': b64(access.credentials.key),
        };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name, cluster: { server: access.server, 'certificate-authority-data': b64(access.ca) } },
    ],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'admin', context: { cluster: name, user: 'admin' } }],
    'current-context': 'admin',
  });
}
