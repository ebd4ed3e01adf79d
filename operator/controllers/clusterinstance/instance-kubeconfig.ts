import { LABEL_CLUSTER_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance } from '../../api/resources.js';
import { INSTANCES, SECRETS } from '../../api/resources.js';
import { isAlreadyExists } from '../../kube/api-error.js';
import type { Manager } from '../../runtime/manager.js';
import type { SecretObject } from './hcp/hcp-builders.js';
import { kubeconfigSecretName } from './hcp/hcp-naming.js';
import { InstanceFailure, Reason } from './instance-status.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/**
 * The canonical `<instance>-kubeconfig` Secret (spec §3.12) that the lease controller copies:
 * keys `kubeconfig` and `ocpVersion`, common labels, controlled by the instance. An existing
 * Secret of another owner is a conflict, never overwritten. Returns the Secret's name.
 */
export async function upsertInstanceKubeconfig(
  manager: Manager,
  instance: ClusterInstance,
  kubeconfig: string,
  ocpVersion: string,
): Promise<string> {
  const name = kubeconfigSecretName(instance.metadata!.name!);
  const namespace = instance.metadata!.namespace!;
  const desired: SecretObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: {
        [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR,
        [LABEL_CLUSTER_INSTANCE]: instance.metadata!.name!,
      },
      ownerReferences: [
        {
          apiVersion: INSTANCES.apiVersion,
          kind: INSTANCES.kind,
          name: instance.metadata!.name!,
          uid: instance.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    type: 'Opaque',
    data: { kubeconfig: b64(kubeconfig), ocpVersion: b64(ocpVersion) },
  };
  let existing = manager.informer<SecretObject>(SECRETS).get(`${namespace}/${name}`);
  if (!existing) {
    try {
      await manager.client.create(SECRETS, desired);
      return name;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      existing = await manager.client.get<SecretObject>(SECRETS, name, namespace);
    }
  }
  const controlled = existing.metadata?.ownerReferences?.some(
    (ref) => ref.controller && ref.uid === instance.metadata!.uid,
  );
  if (!controlled)
    throw new InstanceFailure(
      Reason.APIEndpointConflict,
      `kubeconfig Secret ${namespace}/${name} is not owned by ClusterInstance ${instance.metadata!.name} (UID ${instance.metadata!.uid})`,
    );
  const data = existing.data ?? {};
  const differs =
    Object.keys(data).length !== Object.keys(desired.data!).length ||
    Object.entries(desired.data!).some(([k, v]) => data[k] !== v);
  if (differs) {
    await manager.client.update(SECRETS, { ...existing, type: desired.type, data: desired.data });
  }
  return name;
}
