import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import type { TestNamespace } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import { coreApi } from '../support/client-node-clients.js';

/** What the CI identity of samples/ci-identity-rbac.yaml hands the Action. */
export interface CiAccess {
  server: string;
  ca: string;
  token: string;
}

/** Installs the documented CI identity in the test namespace and mints a token for it. */
export async function ciIdentity(ns: TestNamespace): Promise<CiAccess> {
  const text = await readFile(path.join(projectRoot(), 'samples', 'ci-identity-rbac.yaml'), 'utf8');
  const manifest = parseAllDocuments(text)
    .map((document) => document.toString().replaceAll('namespace: ci', `namespace: ${ns.name}`))
    .join('---\n');
  await kubectl(['apply', '-f', '-'], manifest);
  const token = await coreApi(ns).createNamespacedServiceAccountToken({
    name: 'guestcluster-ci',
    namespace: ns.name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = ns.kubeConfig.getCurrentCluster();
  return { server: cluster.server, ca: cluster.caData!, token: token.status!.token! };
}

/** The Action's inputs for the management cluster as that identity, a namespace and a pool. */
export function actionInputs(
  access: CiAccess,
  namespace: string,
  pool: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    'management-server': access.server,
    'management-token': access.token,
    'management-certificate-authority': access.ca,
    namespace,
    pool,
    ...extra,
  };
}
