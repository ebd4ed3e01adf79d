import { SECRETS } from '../../../../client/api/resources.js';
import type { Desired } from '../../../kube/objects.js';
import type { Secret } from '../../../kube/workloads.js';
import { generateEd25519KeyPair, keyOf } from '../../../../contracts/ssh-key.js';
import { decodeBase64, encodeBase64 } from '../core/encoding.js';
import type { Instance } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { commonLabels } from '../core/naming.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { instanceSshKeySecretName } from './crc-naming.js';
import { controllerReference } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

/** Data keys of the instance SSH key Secret (and file names where the agent Job mounts it). */
export const INSTANCE_SSH_KEY_FILES = { privateKey: 'id_ed25519', publicKey: 'id_ed25519.pub' };

/**
 * `<instance>-crc-ssh-key`: an ed25519 key of the instance's own. The agent logs in with the
 * bundle key once, puts this key into authorized_keys, and takes the bundle key out (every guest
 * of a bundle shares it, and it ships in the public bundle).
 */
export function buildInstanceSshKeySecret(instance: Instance): Desired<Secret> {
  const pair = generateEd25519KeyPair();
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: instanceSshKeySecretName(instance.metadata.name),
      namespace: instance.metadata.namespace,
      labels: commonLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    type: 'Opaque',
    data: {
      [INSTANCE_SSH_KEY_FILES.privateKey]: encodeBase64(pair.private),
      [INSTANCE_SSH_KEY_FILES.publicKey]: encodeBase64(keyOf(pair.private).authorizedKeyLine),
    },
  };
}

/** Made once per instance, then only checked: never replaced (the guest trusts that one key). */
export async function ensureInstanceSshKey(objects: InstanceObjects): Promise<void> {
  const name = instanceSshKeySecretName(objects.instance.metadata.name);
  const existing = await objects.current<Secret>(SECRETS, name);
  if (!existing) {
    await objects.ensure(SECRETS, buildInstanceSshKeySecret(objects.instance));
    return;
  }
  if (!objects.controls(existing))
    throw new OwnershipConflictError(
      `CRC SSH key Secret ${objects.namespace}/${name} is not controlled by this ClusterInstance`,
    );
  try {
    keyOf(decodeBase64(existing.data?.[INSTANCE_SSH_KEY_FILES.privateKey]));
  } catch (error) {
    throw new Error(
      `CRC SSH key Secret ${objects.namespace}/${name} is not usable: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
