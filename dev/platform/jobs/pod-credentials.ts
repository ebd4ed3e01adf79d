import { stringify } from 'yaml';
import { ApiClient } from '../../../client/kube/api-client.js';
import type { AdminAccess } from '../../support/admin-access.js';
import { serviceAccountToken } from '../../support/service-account-token.js';
import { writeSecretFile } from '../../control-plane/kubeconfig-file.js';

/**
 * What a kubelet gives a pod to reach the apiserver: a token of the pod's ServiceAccount (a
 * TokenRequest, as the projected token volume holds), here written as a kubeconfig (0600) that the
 * local process finds through KUBECONFIG, since in-cluster discovery (KUBERNETES_SERVICE_HOST and
 * the token file at its fixed path) cannot point at a local apiserver. The process so acts with
 * the ServiceAccount's rights, RBAC included, exactly as in a cluster.
 */
export async function writePodKubeconfig(
  admin: AdminAccess,
  namespace: string,
  serviceAccountName: string,
  file: string,
): Promise<void> {
  const api = new ApiClient(admin);
  const token = await serviceAccountToken(api, namespace, serviceAccountName, 3600).finally(() =>
    api.close(),
  );
  const { server, caData } = admin.getCurrentCluster();
  const user = `system:serviceaccount:${namespace}:${serviceAccountName}`;
  await writeSecretFile(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'cluster',
          cluster: { server, 'certificate-authority-data': caData },
        },
      ],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: 'pod', context: { cluster: 'cluster', user, namespace } }],
      'current-context': 'pod',
    }),
  );
}
