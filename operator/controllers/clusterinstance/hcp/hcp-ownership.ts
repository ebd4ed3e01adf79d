import { INSTANCES } from '../../../../client/api/resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { Instance, InstanceApi } from '../core/instance-api.js';
import { InstanceObjects } from '../core/instance-objects.js';
import { endpointLabels } from '../core/naming.js';
import type { OwnershipRule } from '../core/ownership.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';

/**
 * Whether an HCP object belongs to the instance
 * (docs/reference/instances.md#hcp-placement-and-ownership): in the instance's namespace by an
 * owner reference with its UID; elsewhere (the Route in the control plane namespace) by the three
 * endpoint labels.
 */
export function isOwnedBy(object: KubeObject, instance: Instance): boolean {
  const meta = object.metadata ?? {};
  if (meta.namespace === instance.metadata.namespace) {
    return (meta.ownerReferences ?? []).some(
      (ref) => ref.kind === INSTANCES.kind && ref.uid === instance.metadata.uid,
    );
  }
  const labels = meta.labels ?? {};
  return Object.entries(endpointLabels(instance)).every(([key, value]) => labels[key] === value);
}

/** Throws an OwnershipConflictError when an existing object belongs to someone else. */
export function verifyOwnership(
  object: KubeObject | undefined,
  instance: Instance,
  what: string,
): void {
  if (object && !isOwnedBy(object, instance)) {
    throw new OwnershipConflictError(notOwned(object, what, instance));
  }
}

const notOwned = (object: KubeObject, kind: string, instance: Instance): string =>
  `${kind} ${object.metadata?.namespace}/${object.metadata?.name} is not owned by ClusterInstance ${instance.metadata.namespace}/${instance.metadata.name} (UID ${instance.metadata.uid})`;

/** The hcp rule as the engine applies it: owned as isOwnedBy says, never adopted. */
export function hcpRule(instance: Instance): OwnershipRule {
  return {
    verdict: (object, kind) =>
      isOwnedBy(object, instance)
        ? { owned: true }
        : { conflict: notOwned(object, kind, instance) },
    orphaned: (object, kind) => notOwned(object, kind, instance),
    adopts: false,
  };
}

/** The objects of an hcp instance, judged by the hcp rule. */
export function hcpObjects(api: InstanceApi, instance: Instance): InstanceObjects {
  return new InstanceObjects(api, instance, hcpRule(instance));
}
