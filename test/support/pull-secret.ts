import { SECRETS } from '../../client/api/resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';

/** The pull secret an instance of either topology needs in its namespace (default name `pull-secret`). */
export async function createPullSecret(
  api: ApiClient,
  namespace: string,
  name = 'pull-secret',
): Promise<void> {
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: {
      '.dockerconfigjson': Buffer.from('{"auths":{"quay.io":{"auth":"eDp5"}}}').toString('base64'),
    },
  } as never);
}
