import {
  LABEL_CLUSTER_INSTANCE,
  LABEL_CLUSTER_INSTANCE_NAMESPACE,
  LABEL_MANAGED_BY,
  MANAGED_BY_OPERATOR,
} from '../../../api/labels.js';
import type { ClusterInstance } from '../../../api/resources.js';
import { INSTANCES } from '../../../api/resources.js';
import type { KubeObject, OwnerReference } from '../../../kube/objects.js';
import { OwnershipConflictError } from '../ownership-conflict.js';

/** The API-endpoint label set (spec §3): managed-by, instance and instance namespace. */
export function endpointLabels(instance: ClusterInstance): Record<string, string> {
  return {
    [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR,
    [LABEL_CLUSTER_INSTANCE]: instance.metadata!.name!,
    [LABEL_CLUSTER_INSTANCE_NAMESPACE]: instance.metadata!.namespace!,
  };
}

export function instanceOwnerReference(
  instance: ClusterInstance,
  controller = true,
): OwnerReference {
  return {
    apiVersion: INSTANCES.apiVersion,
    kind: INSTANCES.kind,
    name: instance.metadata!.name!,
    uid: instance.metadata!.uid!,
    controller,
    blockOwnerDeletion: true,
  };
}

/**
 * Whether an HCP object belongs to the instance (spec §2.3.12 "verify"): in the instance's
 * namespace by an owner reference with its UID; elsewhere (the Route in the control plane
 * namespace) by the three endpoint labels.
 */
export function isOwnedBy(object: KubeObject, instance: ClusterInstance): boolean {
  const meta = object.metadata ?? {};
  if (meta.namespace === instance.metadata!.namespace) {
    return (meta.ownerReferences ?? []).some(
      (ref) => ref.kind === INSTANCES.kind && ref.uid === instance.metadata!.uid,
    );
  }
  const labels = meta.labels ?? {};
  return Object.entries(endpointLabels(instance)).every(([key, value]) => labels[key] === value);
}

/** Throws an OwnershipConflictError when an existing object belongs to someone else. */
export function verifyOwnership(
  object: KubeObject | undefined,
  instance: ClusterInstance,
  what: string,
): void {
  if (object && !isOwnedBy(object, instance)) {
    throw new OwnershipConflictError(
      `${what} ${object.metadata?.namespace}/${object.metadata?.name} is not owned by ClusterInstance ${instance.metadata!.namespace}/${instance.metadata!.name} (UID ${instance.metadata!.uid})`,
    );
  }
}
