import { createHash } from 'node:crypto';
import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../../api/labels.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Desired } from '../../../kube/objects.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import { writeKubeconfig } from '../../../kube/strict-kubeconfig.js';
import type { Secret } from '../../../kube/workloads.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import { decodeBase64, encodeBase64 } from './encoding.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { commonLabels, kubeconfigSecretName } from './naming.js';
import { InstanceFailure, Reason } from './reasons.js';
import { controllerReference, isControlledBy } from '../../../kube/ownership.js';
import { INSTANCES } from '../../../../client/api/resources.js';

/** SHA-256 (hex) of a kubeconfig as published: what status.kubeconfigSHA256 records. */
export const kubeconfigDigest = (kubeconfig: string): string =>
  createHash('sha256').update(kubeconfig).digest('hex');

/** What was published: the Secret's name and the digest to record in the status. */
export interface Published {
  secretName: string;
  sha256: string;
}

function desiredSecret(instance: Instance, data: Record<string, string>): Desired<Secret> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: kubeconfigSecretName(instance.metadata.name),
      namespace: instance.metadata.namespace,
      labels: commonLabels(instance),
      ownerReferences: [controllerReference(INSTANCES, instance)],
    },
    type: 'Opaque',
    data,
  };
}

const sameData = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(b).every(([key, value]) => a[key] === value);

/**
 * The canonical `<instance>-kubeconfig` Secret (docs/reference/generated-objects.md#secrets) that
 * the lease controller copies: keys `kubeconfig` and `ocpVersion`, common labels, controlled by the
 * instance. The kubeconfig is written from what the operator holds for the instance (`access`),
 * never taken from another Secret. A Secret that no longer holds what the operator last published
 * (status kubeconfigSHA256) was changed by someone else: it is rewritten, with a Warning Event. An
 * existing Secret of another owner is a conflict, never overwritten.
 */
export async function publishKubeconfig(
  api: InstanceApi,
  instance: Instance,
  published: { access: GuestAccess; ocpVersion: string; context: ReconcileContext },
): Promise<Published> {
  const name = kubeconfigSecretName(instance.metadata.name);
  const namespace = instance.metadata.namespace;
  const kubeconfig = writeKubeconfig(published.access, instance.metadata.name);
  const result = { secretName: name, sha256: kubeconfigDigest(kubeconfig) };
  const desired = desiredSecret(instance, {
    kubeconfig: encodeBase64(kubeconfig),
    ocpVersion: encodeBase64(published.ocpVersion),
  });
  const existing =
    api.cached<Secret>(SECRETS, `${namespace}/${name}`) ??
    ((await api.createIfMissing(SECRETS, desired))
      ? undefined
      : await api.get<Secret>(SECRETS, name, namespace));
  if (!existing) return result;
  if (!isControlledBy(existing, instance))
    throw new InstanceFailure(
      Reason.APIEndpointConflict,
      `kubeconfig Secret ${namespace}/${name} is not owned by ClusterInstance ${instance.metadata.name} (UID ${instance.metadata.uid})`,
    );
  const data = existing.data ?? {};
  const labelled = existing.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_OPERATOR;
  if (labelled && sameData(data, desired.data!)) return result;
  const labels = { ...existing.metadata?.labels, ...desired.metadata.labels };
  await api.update(SECRETS, {
    ...existing,
    metadata: { ...existing.metadata, labels },
    type: desired.type,
    data: desired.data,
  });
  reportDrift(api, instance, data, published.context);
  return result;
}

/** A Secret that held something else than what was last published was changed by someone else. */
function reportDrift(
  api: InstanceApi,
  instance: Instance,
  held: Record<string, string>,
  context: ReconcileContext,
): void {
  // A legitimate update (a renewed KAS certificate) starts from what was recorded; anything else
  // was written by someone else (or by an operator version that published other content).
  if (kubeconfigDigest(decodeBase64(held.kubeconfig)) === instance.status?.kubeconfigSHA256) return;
  const name = kubeconfigSecretName(instance.metadata.name);
  context.logger.info({ secret: name }, 'Rewrote a changed kubeconfig Secret');
  api.event(
    instance,
    'Warning',
    'KubeconfigRewritten',
    `Secret ${instance.metadata.namespace}/${name} no longer held the kubeconfig the operator published; rewrote it from the instance's own credentials`,
  );
}
