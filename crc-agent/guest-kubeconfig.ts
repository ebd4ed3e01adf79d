import { isMap, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * Parses kubeconfig YAML. The parser's own messages quote the offending lines, and a kubeconfig
 * holds credentials, so failures say only where the problem is.
 */
export function parseKubeconfig(text: string): Document {
  const document = parseDocument(text, { prettyErrors: false });
  if (document.errors.length > 0) {
    const position = document.errors[0]!.linePos?.[0];
    throw new Error(`not valid YAML${position ? ` (line ${position.line})` : ''}`);
  }
  if (!isMap(document.contents)) throw new Error('not a kubeconfig (no top-level mapping)');
  return document;
}

/** Whether the text is a kubeconfig with at least one `clusters` entry ("ready" for the agent). */
export function hasClusters(text: string): boolean {
  const clusters = parseKubeconfig(text).get('clusters');
  return isSeq(clusters) && clusters.items.length > 0;
}

/** The bundle server CA: base64-decoded `clusters[0].cluster.certificate-authority-data`. */
export function bundleServerCa(text: string): string {
  const document = parseKubeconfig(text);
  const clusters = document.get('clusters');
  if (!isSeq(clusters) || clusters.items.length === 0)
    throw new Error('guest kubeconfig has no clusters');
  const cluster = document.getIn(['clusters', 0, 'cluster']);
  if (!isMap(cluster)) throw new Error('guest kubeconfig clusters[0].cluster is not a mapping');
  const data = cluster.get('certificate-authority-data');
  if (typeof data !== 'string' || data === '')
    throw new Error('guest kubeconfig clusters[0] has no certificate-authority-data');
  return Buffer.from(data, 'base64').toString('utf8');
}

/**
 * Puts the identity's client certificate and key into `users[0].user` (inline data; file
 * references removed). Everything else is kept.
 */
export function spliceClientIdentity(text: string, certPem: string, keyPem: string): string {
  const document = parseKubeconfig(text);
  const users = document.get('users');
  if (!isSeq(users) || users.items.length === 0) throw new Error('guest kubeconfig has no users');
  if (!isMap(document.getIn(['users', 0, 'user']))) document.setIn(['users', 0, 'user'], {});
  document.setIn(['users', 0, 'user', 'client-certificate-data'], b64(certPem));
  document.setIn(['users', 0, 'user', 'client-key-data'], b64(keyPem));
  document.deleteIn(['users', 0, 'user', 'client-certificate']);
  document.deleteIn(['users', 0, 'user', 'client-key']);
  return document.toString();
}

/**
 * The routable kubeconfig (spec §6.2): every cluster entry points at
 * `https://<apiHostname>:443` and trusts the external serving certificate; the rest is kept.
 */
export function rewriteKubeconfig(
  text: string,
  apiHostname: string,
  servingCertPem: string,
): string {
  const document = parseKubeconfig(text);
  const clusters = document.get('clusters');
  if (!isSeq(clusters) || clusters.items.length === 0)
    throw new Error('guest kubeconfig has no clusters');
  clusters.items.forEach((_, index) => {
    if (!isMap(document.getIn(['clusters', index, 'cluster'])))
      document.setIn(['clusters', index, 'cluster'], {});
    const path = ['clusters', index, 'cluster'];
    document.setIn([...path, 'server'], `https://${apiHostname}:443`);
    document.deleteIn([...path, 'certificate-authority']);
    document.setIn([...path, 'certificate-authority-data'], b64(servingCertPem));
    document.deleteIn([...path, 'insecure-skip-tls-verify']);
  });
  return document.toString();
}
