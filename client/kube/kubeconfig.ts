import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * What guestcluster needs from a kubeconfig: its current context's server, TLS and credentials.
 * Our own small reader (not client-node's KubeConfig, which loads every generated API model and
 * costs the operator about 90 MB of memory, and the Action a larger bundle). Tokens and client
 * certificates only: exec and auth-provider plugins are refused with a clear message.
 */
export interface KubeconfigContext {
  server: string;
  namespace?: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  /** A token read from this file, again whenever it may have been rotated. */
  tokenFile?: string;
  servername?: string;
  insecureSkipTlsVerify: boolean;
}

type Fields = Record<string, unknown>;

/** One named entry of a kubeconfig list; which of the three fields it has depends on the list. */
interface Entry {
  name: string;
  context?: Fields;
  cluster?: Fields;
  user?: Fields;
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: Entry[];
  clusters?: Entry[];
  users?: Entry[];
}

/** A kubeconfig the Action cannot use; the message never contains credential values. */
export class KubeconfigError extends Error {
  override name = 'KubeconfigError';
}

const CREDENTIAL_FIELDS = ['token', 'client-certificate-data', 'client-key-data', 'password'];

function stringField(fields: Fields, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseFile(text: string): KubeconfigFile {
  try {
    const parsed: unknown = parse(text);
    if (parsed && typeof parsed === 'object') return parsed;
  } catch {
    // The YAML error quotes the offending line, which may hold a credential: say less.
  }
  throw new KubeconfigError('is not a kubeconfig (YAML with clusters, users and contexts)');
}

function find(entries: Entry[] | undefined, name: string, what: string): Entry {
  const entry = entries?.find((candidate) => candidate.name === name);
  if (!entry) throw new KubeconfigError(`names ${what} "${name}", which it does not define`);
  return entry;
}

/** Inline data wins over a file path, like kubectl. */
function pem(fields: Fields, dataKey: string, fileKey: string): string | undefined {
  const data = stringField(fields, dataKey);
  if (data) return Buffer.from(data, 'base64').toString();
  const file = stringField(fields, fileKey);
  return file ? readFileSync(file, 'utf8') : undefined;
}

function userCredentials(
  user: Fields,
  userName: string,
): Pick<KubeconfigContext, 'cert' | 'key' | 'token' | 'tokenFile'> {
  for (const unsupported of ['exec', 'auth-provider', 'username'])
    if (user[unsupported] !== undefined)
      throw new KubeconfigError(
        `user "${userName}" authenticates with "${unsupported}", which guestcluster does not support; use a token or a client certificate`,
      );
  const token = stringField(user, 'token');
  const tokenFile = token ? undefined : stringField(user, 'tokenFile');
  const cert = pem(user, 'client-certificate-data', 'client-certificate');
  const key = pem(user, 'client-key-data', 'client-key');
  if (!token && !tokenFile && !(cert && key))
    throw new KubeconfigError(
      `user "${userName}" has neither a token nor a client certificate and key`,
    );
  return { token, tokenFile, cert, key };
}

/** Reads the current context of a kubeconfig (content, not a path). */
export function parseKubeconfig(text: string): KubeconfigContext {
  const file = parseFile(text);
  const contextName = file['current-context'] ?? file.contexts?.[0]?.name;
  if (!contextName) throw new KubeconfigError('has no current-context and no contexts');
  const context = find(file.contexts, contextName, 'context').context ?? {};
  const clusterName = stringField(context, 'cluster') ?? '';
  const userName = stringField(context, 'user') ?? '';
  const cluster = find(file.clusters, clusterName, 'cluster').cluster ?? {};
  const user = find(file.users, userName, 'user').user ?? {};
  const server = stringField(cluster, 'server');
  if (!server) throw new KubeconfigError(`cluster "${clusterName}" has no server`);
  return {
    server: server.replace(/\/+$/, ''),
    namespace: stringField(context, 'namespace'),
    ca: pem(cluster, 'certificate-authority-data', 'certificate-authority'),
    servername: stringField(cluster, 'tls-server-name'),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    ...userCredentials(user, userName),
  };
}

/**
 * Every credential value in a kubeconfig, as written and decoded, to mask in the log. Lenient:
 * whatever it cannot parse it skips (the caller masks the whole text as well).
 */
export function kubeconfigCredentials(text: string): string[] {
  let file: KubeconfigFile;
  try {
    file = parseFile(text);
  } catch {
    return [];
  }
  const values: string[] = [];
  for (const entry of file.users ?? []) {
    const user = entry.user ?? {};
    for (const key of CREDENTIAL_FIELDS) {
      const value = stringField(user, key);
      if (!value) continue;
      values.push(value);
      if (key.endsWith('-data')) {
        const decoded = Buffer.from(value, 'base64').toString();
        values.push(decoded, ...decoded.split('\n').filter((line) => line.length >= 16));
      }
    }
  }
  return values;
}
