import { chmod, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { CertificateAndKey } from './pki.js';

const base64 = (pem: string): string => Buffer.from(pem).toString('base64');

/** Renders a kubeconfig that authenticates with a client certificate. */
export function renderKubeconfig(options: {
  server: string;
  caPem: string;
  client: CertificateAndKey;
  user: string;
  context?: string;
}): string {
  const context = options.context ?? 'guestcluster-local';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: context,
        cluster: { server: options.server, 'certificate-authority-data': base64(options.caPem) },
      },
    ],
    users: [
      {
        name: options.user,
        user: {
          'client-certificate-data': base64(options.client.certificatePem),
          'client-key-data': base64(options.client.keyPem),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster: context, user: options.user } }],
    'current-context': context,
    preferences: {},
  });
}

/** Kubeconfigs hold credentials: owner-only. */
export async function writeSecretFile(file: string, content: string): Promise<void> {
  await writeFile(file, content, { mode: 0o600 });
  // `mode` applies only when the file is created; an existing file keeps its old mode otherwise.
  await chmod(file, 0o600);
}
