import { isMap, isSeq, parseDocument, stringify } from 'yaml';
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
 * The handoff kubeconfig (docs/reference/agent-protocol.md#handoff-kubeconfig), written from
 * scratch: one cluster at
 * `https://<apiHostname>:443` trusting the external serving certificate, one user with the
 * instance's client certificate, one context. Nothing of the guest's own file (its other users,
 * contexts, current-context or file references) goes along.
 */
export function handoffKubeconfig(
  apiHostname: string,
  identity: { servingCertPem: string; clientCertPem: string; clientKeyPem: string },
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'crc',
        cluster: {
          server: `https://${apiHostname}:443`,
          'certificate-authority-data': b64(identity.servingCertPem),
        },
      },
    ],
    users: [
      {
        name: 'admin',
        user: {
          'client-certificate-data': b64(identity.clientCertPem),
          'client-key-data': b64(identity.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: 'admin', context: { cluster: 'crc', user: 'admin' } }],
    'current-context': 'admin',
  });
}
