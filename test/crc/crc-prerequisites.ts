import { SECRETS } from '../../operator/api/resources.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { createPullSecret } from '../support/pull-secret.js';
import type { SimulatedPlatform } from '../../dev/platform/simulated-platform.js';

export { TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';

/**
 * What a crc instance of the manual path needs besides its spec: the pull secret and the bundle
 * SSH key Secret (key `id_ecdsa`) with the key that disks the platform imports over HTTP accept.
 */
export async function createCrcPrerequisites(
  platform: SimulatedPlatform,
  api: ApiClient,
  namespace: string,
  names: { pullSecret?: string; sshKeySecret?: string } = {},
): Promise<{ pullSecret: string; sshKeySecret: string; sshKeyDataKey: string }> {
  const pullSecret = names.pullSecret ?? 'pull-secret';
  const sshKeySecret = names.sshKeySecret ?? 'crc-bundle-ssh-key';
  await createPullSecret(api, namespace, pullSecret);
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: sshKeySecret, namespace },
    type: 'Opaque',
    data: { id_ecdsa: Buffer.from(platform.bundleKey.private).toString('base64') },
  } as KubeObject);
  return { pullSecret, sshKeySecret, sshKeyDataKey: 'id_ecdsa' };
}
