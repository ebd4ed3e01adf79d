import path from 'node:path';
import { stringify } from 'yaml';
import { SERVICE_ACCOUNTS } from '../../client/api/core-resources.js';
import { NAMESPACES } from '../../client/api/resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import { isAlreadyExists } from '../../client/kube/api-error.js';
import { resourceType } from '../../client/kube/resource-type.js';
import { AUDITED_GROUP } from '../../dev/control-plane/control-plane.js';
import { writeSecretFile } from '../../dev/control-plane/kubeconfig-file.js';
import type { AdminAccess } from '../../dev/support/admin-access.js';
import { serviceAccountToken } from '../../dev/support/service-account-token.js';
import type { KubeObject } from '../../operator/kube/objects.js';

const CLUSTER_ROLE_BINDINGS = resourceType(
  'rbac.authorization.k8s.io/v1',
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
);
/** The namespace whose ServiceAccounts the control plane's audit log records (AUDITED_GROUP). */
const AUDITED_NAMESPACE = AUDITED_GROUP.split(':').at(-1)!;
/** Longer than any upgrade run; a kubelet would renew it, nothing here needs to. */
const TOKEN_SECONDS = 3600;

/** An operator process's own identity, which the audit log names on each of its requests. */
export interface OperatorAccount {
  username: string;
  kubeconfigPath: string;
}

const created = <T>(write: Promise<T>): Promise<T | undefined> =>
  write.catch((error: unknown) => {
    if (isAlreadyExists(error)) return undefined;
    throw error;
  });

/**
 * A ServiceAccount of the audited namespace with cluster-admin (what either release's RBAC grants
 * is not what this proves), and a kubeconfig file (0600 in `dir`) with a token of it: the audit
 * log then tells the two operators' requests apart, and orders them.
 */
export async function operatorAccount(
  api: ApiClient,
  admin: AdminAccess,
  dir: string,
  name: string,
): Promise<OperatorAccount> {
  const namespace = AUDITED_NAMESPACE;
  await created(
    api.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
  );
  await created(
    api.create(SERVICE_ACCOUNTS, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace },
    }),
  );
  await created(
    api.create(CLUSTER_ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `upgrade-test-${name}` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    } as KubeObject),
  );
  const token = await serviceAccountToken(api, namespace, name, TOKEN_SECONDS);
  const username = `system:serviceaccount:${namespace}:${name}`;
  const cluster = admin.getCurrentCluster();
  const kubeconfigPath = path.join(dir, `${name}.kubeconfig`);
  await writeSecretFile(
    kubeconfigPath,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'test',
          cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData },
        },
      ],
      users: [{ name: username, user: { token } }],
      contexts: [{ name: 'operator', context: { cluster: 'test', user: username } }],
      'current-context': 'operator',
    }),
  );
  return { username, kubeconfigPath };
}
