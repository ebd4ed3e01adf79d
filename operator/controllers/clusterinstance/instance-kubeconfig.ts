import { createHash } from 'node:crypto';
import { LABEL_CLUSTER_INSTANCE, LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterInstance } from '../../api/resources.js';
import { INSTANCES, SECRETS } from '../../api/resources.js';
import { isAlreadyExists } from '../../kube/api-error.js';
import type { GuestAccess } from '../../kube/strict-kubeconfig.js';
import { writeKubeconfig } from '../../kube/strict-kubeconfig.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import type { SecretObject } from './hcp/hcp-builders.js';
import { kubeconfigSecretName } from './hcp/hcp-naming.js';
import { InstanceFailure, Reason } from './instance-status.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** SHA-256 (hex) of a kubeconfig as published: what status.kubeconfigSHA256 records. */
export const kubeconfigDigest = (kubeconfig: string): string =>
  createHash('sha256').update(kubeconfig).digest('hex');

/** What was published: the Secret's name and the digest to record in the status. */
export interface Published {
  secretName: string;
  sha256: string;
}

function desiredSecret(
  instance: ClusterInstance,
  name: string,
  data: Record<string, string>,
): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: instance.metadata!.namespace!,
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
    data,
  };
}

const sameData = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(b).every(([key, value]) => a[key] === value);

/**
 * The canonical `<instance>-kubeconfig` Secret (spec §3.12) that the lease controller copies:
 * keys `kubeconfig` and `ocpVersion`, common labels, controlled by the instance. The kubeconfig
 * is written from what the operator holds for the instance (`access`), never taken from another
 * Secret. A Secret that no longer holds what the operator last published (status
 * kubeconfigSHA256) was changed by someone else: it is rewritten, with a Warning Event. An
 * existing Secret of another owner is a conflict, never overwritten.
 */
export async function upsertInstanceKubeconfig(
  manager: Manager,
  instance: ClusterInstance,
  published: { access: GuestAccess; ocpVersion: string; context?: ReconcileContext },
): Promise<Published> {
  const name = kubeconfigSecretName(instance.metadata!.name!);
  const namespace = instance.metadata!.namespace!;
  const kubeconfig = writeKubeconfig(published.access, instance.metadata!.name!);
  const result = { secretName: name, sha256: kubeconfigDigest(kubeconfig) };
  const desired = desiredSecret(instance, name, {
    kubeconfig: b64(kubeconfig),
    ocpVersion: b64(published.ocpVersion),
  });
  let existing = manager.informer<SecretObject>(SECRETS).get(`${namespace}/${name}`);
  if (!existing) {
    try {
      await manager.client.create(SECRETS, desired);
      return result;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      existing = await manager.client.get<SecretObject>(SECRETS, name, namespace);
    }
  }
  if (
    !existing.metadata?.ownerReferences?.some(
      (r) => r.controller && r.uid === instance.metadata!.uid,
    )
  )
    throw new InstanceFailure(
      Reason.APIEndpointConflict,
      `kubeconfig Secret ${namespace}/${name} is not owned by ClusterInstance ${instance.metadata!.name} (UID ${instance.metadata!.uid})`,
    );
  const data = existing.data ?? {};
  const labelled = existing.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_OPERATOR;
  if (labelled && sameData(data, desired.data!)) return result;
  const labels = { ...existing.metadata.labels, ...desired.metadata!.labels };
  await manager.client.update(SECRETS, {
    ...existing,
    metadata: { ...existing.metadata, labels },
    type: desired.type,
    data: desired.data,
  });
  reportDrift(manager, instance, data, published.context);
  return result;
}

/** A Secret that held something else than what was last published was changed by someone else. */
function reportDrift(
  manager: Manager,
  instance: ClusterInstance,
  held: Record<string, string>,
  context: ReconcileContext | undefined,
): void {
  const recorded = instance.status?.kubeconfigSHA256;
  const heldDigest = kubeconfigDigest(
    Buffer.from(held.kubeconfig ?? '', 'base64').toString('utf8'),
  );
  // A legitimate update (a renewed KAS certificate) starts from what was recorded; anything else
  // was written by someone else (or by an operator version that published other content).
  if (heldDigest === recorded) return;
  const name = kubeconfigSecretName(instance.metadata!.name!);
  context?.logger.info({ secret: name }, 'Rewrote a changed kubeconfig Secret');
  void manager.events.record(
    instance,
    'Warning',
    'KubeconfigRewritten',
    `Secret ${instance.metadata!.namespace}/${name} no longer held the kubeconfig the operator published; rewrote it from the instance's own credentials`,
  );
}
