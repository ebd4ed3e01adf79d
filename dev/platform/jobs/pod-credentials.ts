import { readFile } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { writeSecretFile } from '../../control-plane/kubeconfig-file.js';

/**
 * What a kubelet gives a pod to reach the apiserver: a token of the pod's ServiceAccount (a
 * TokenRequest, as the projected token volume holds), here written as a kubeconfig (0600) that the
 * local process finds through KUBECONFIG, since in-cluster discovery (KUBERNETES_SERVICE_HOST and
 * the token file at its fixed path) cannot point at a local apiserver. The process so acts with
 * the ServiceAccount's rights, RBAC included, exactly as in a cluster.
 */
export async function writePodKubeconfig(
  admin: KubeConfig,
  namespace: string,
  serviceAccountName: string,
  file: string,
): Promise<void> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name: serviceAccountName,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('The admin kubeconfig has no current cluster');
  const caData =
    cluster.caData ??
    (cluster.caFile ? (await readFile(cluster.caFile)).toString('base64') : undefined);
  const user = `system:serviceaccount:${namespace}:${serviceAccountName}`;
  await writeSecretFile(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'cluster',
          cluster: { server: cluster.server, 'certificate-authority-data': caData },
        },
      ],
      users: [{ name: user, user: { token: request.status!.token } }],
      contexts: [{ name: 'pod', context: { cluster: 'cluster', user, namespace } }],
      'current-context': 'pod',
    }),
  );
}
