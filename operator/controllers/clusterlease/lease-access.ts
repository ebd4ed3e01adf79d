import { ROLES, ROLE_BINDINGS } from '../../api/core-resources.js';
import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import { isAlreadyExists, isNotFound } from '../../kube/api-error.js';
import type { KubeObject } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import type { ResourceType } from '../../kube/resource-type.js';
import type { Manager } from '../../runtime/manager.js';
import { kubeconfigSecretName } from '../../../contracts/names.js';

/** A Role or RoleBinding: what the lease's access is made of. */
interface RbacObject extends KubeObject {
  rules?: unknown[];
  roleRef?: unknown;
  subjects?: unknown[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** The Secret, Role and RoleBinding of a lease share its name: `<lease>-kubeconfig`. */
export const leaseKubeconfigName = kubeconfigSecretName;

/** spec.subjects as RBAC subjects; a ServiceAccount without namespace is the lease's. */
export function rbacSubjects(lease: ClusterLease): Record<string, string>[] {
  return (lease.spec.subjects ?? []).map((subject): Record<string, string> =>
    subject.kind === 'ServiceAccount'
      ? {
          kind: 'ServiceAccount',
          name: subject.name,
          namespace: subject.namespace ?? lease.metadata!.namespace!,
        }
      : { apiGroup: RBAC_GROUP, kind: subject.kind, name: subject.name },
  );
}

function metadata(lease: ClusterLease): KubeObject['metadata'] {
  return {
    name: leaseKubeconfigName(lease.metadata!.name!),
    namespace: lease.metadata!.namespace!,
    labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR },
    ownerReferences: [
      {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        name: lease.metadata!.name!,
        uid: lease.metadata!.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
}

/** `get` on exactly the lease's kubeconfig Secret, and nothing else. */
export function buildLeaseRole(lease: ClusterLease): RbacObject {
  return {
    apiVersion: ROLES.apiVersion,
    kind: ROLES.kind,
    metadata: metadata(lease),
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: [leaseKubeconfigName(lease.metadata!.name!)],
        verbs: ['get'],
      },
    ],
  };
}

export function buildLeaseRoleBinding(lease: ClusterLease): RbacObject {
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: metadata(lease),
    roleRef: {
      apiGroup: RBAC_GROUP,
      kind: 'Role',
      name: leaseKubeconfigName(lease.metadata!.name!),
    },
    subjects: rbacSubjects(lease),
  };
}

async function live(
  manager: Manager,
  type: ResourceType,
  name: string,
  namespace: string,
): Promise<RbacObject | undefined> {
  try {
    return await manager.client.get<RbacObject>(type, name, namespace);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

const controlledBy = (object: KubeObject, lease: ClusterLease): boolean =>
  !!object.metadata?.ownerReferences?.some((r) => r.controller && r.uid === lease.metadata!.uid);

/** Creates the object, or brings the lease's own one in line; another owner's is never touched. */
async function ensure(
  manager: Manager,
  lease: ClusterLease,
  type: ResourceType,
  desired: RbacObject,
): Promise<void> {
  const { name, namespace } = desired.metadata as { name: string; namespace: string };
  let existing = await live(manager, type, name, namespace);
  if (!existing) {
    try {
      await manager.client.create(type, desired);
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      existing = (await live(manager, type, name, namespace))!;
    }
  }
  if (!controlledBy(existing, lease))
    throw new Error(
      `${type.kind} ${namespace}/${name}, which would grant this lease's kubeconfig, belongs to another owner`,
    );
  const same =
    type === ROLES
      ? sameContent(existing.rules, desired.rules)
      : sameContent(existing.subjects, desired.subjects);
  if (same) return;
  // The lease's RoleBinding only ever names its own Role, so its roleRef never has to change.
  const update =
    type === ROLES
      ? { ...existing, rules: desired.rules }
      : { ...existing, subjects: desired.subjects };
  await manager.client.update(type, update);
}

/** Deletes the lease's own object of that kind, naming its UID; others are left alone. */
async function remove(manager: Manager, lease: ClusterLease, type: ResourceType): Promise<void> {
  const name = leaseKubeconfigName(lease.metadata!.name!);
  const namespace = lease.metadata!.namespace!;
  const existing = await live(manager, type, name, namespace);
  if (!existing || !controlledBy(existing, lease)) return;
  try {
    await manager.client.delete(type, name, namespace, { uid: existing.metadata!.uid });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Who may read the lease's kubeconfig (spec.subjects): a Role with get on exactly
 * `<lease>-kubeconfig` and a RoleBinding to the subjects, owned by the lease (garbage-collected
 * with it). Without subjects there are none (a lease whose subjects were removed loses them):
 * access is then whatever the namespace's own RBAC grants.
 */
export async function ensureLeaseAccess(manager: Manager, lease: ClusterLease): Promise<void> {
  if (!lease.spec.subjects?.length) {
    // Nothing can have been granted to a lease whose spec never changed (and so never named
    // subjects): no request then, on the bind path above all.
    if (lease.metadata?.generation === 1) return;
    await remove(manager, lease, ROLE_BINDINGS);
    await remove(manager, lease, ROLES);
    return;
  }
  await ensure(manager, lease, ROLES, buildLeaseRole(lease));
  await ensure(manager, lease, ROLE_BINDINGS, buildLeaseRoleBinding(lease));
}
