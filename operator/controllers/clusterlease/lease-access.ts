import { ROLES, ROLE_BINDINGS } from '../../../client/api/core-resources.js';
import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../../api/labels.js';
import { LEASES } from '../../../client/api/resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { sameContent } from '../../kube/objects.js';
import { controllerReference, isControlledBy } from '../../kube/ownership.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Lease } from '../binding/binding-model.js';
import { leaseKubeconfigName } from '../binding/binding-model.js';

/** A Role or RoleBinding: what the lease's access is made of. */
interface RbacObject extends KubeObject {
  rules?: unknown[];
  roleRef?: unknown;
  subjects?: unknown[];
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** spec.subjects as RBAC subjects; a ServiceAccount without namespace is the lease's. */
export function rbacSubjects(lease: Lease): Record<string, string>[] {
  return (lease.spec.subjects ?? []).map((subject): Record<string, string> =>
    subject.kind === 'ServiceAccount'
      ? {
          kind: 'ServiceAccount',
          name: subject.name,
          namespace: subject.namespace ?? lease.metadata.namespace,
        }
      : { apiGroup: RBAC_GROUP, kind: subject.kind, name: subject.name },
  );
}

function metadata(lease: Lease): KubeObject['metadata'] {
  return {
    name: leaseKubeconfigName(lease.metadata.name),
    namespace: lease.metadata.namespace,
    labels: { [LABEL_MANAGED_BY]: MANAGED_BY_OPERATOR },
    ownerReferences: [controllerReference(LEASES, lease)],
  };
}

/** `get` on exactly the lease's kubeconfig Secret, and nothing else. */
export function buildLeaseRole(lease: Lease): RbacObject {
  return {
    apiVersion: ROLES.apiVersion,
    kind: ROLES.kind,
    metadata: metadata(lease),
    rules: [
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: [leaseKubeconfigName(lease.metadata.name)],
        verbs: ['get'],
      },
    ],
  };
}

export function buildLeaseRoleBinding(lease: Lease): RbacObject {
  return {
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind: ROLE_BINDINGS.kind,
    metadata: metadata(lease),
    roleRef: {
      apiGroup: RBAC_GROUP,
      kind: 'Role',
      name: leaseKubeconfigName(lease.metadata.name),
    },
    subjects: rbacSubjects(lease),
  };
}

/** ROLES or ROLE_BINDINGS (both namespaced kinds of one type). */
type RbacType = typeof ROLES;

/**
 * How the objects are made: read first (a bound lease's passes, where they exist), or created
 * first and read only when they exist (the bind, where they almost never do: one request each).
 */
export type AccessWrites = 'read-first' | 'create-first';

/** Creates the object, or brings the lease's own one in line; another owner's is never touched. */
async function ensure(
  ports: ControllerPorts,
  lease: Lease,
  type: RbacType,
  desired: RbacObject,
  writes: AccessWrites,
): Promise<void> {
  if (writes === 'create-first' && (await ports.client.createIfAbsent(type, desired))) return;
  await ports.client.ensure(type, desired, (existing) => {
    const { name, namespace } = existing.metadata;
    if (!isControlledBy(existing, lease))
      throw new Error(
        `${type.kind} ${namespace}/${name}, which would grant this lease's kubeconfig, belongs to another owner`,
      );
    // The lease's RoleBinding only ever names its own Role, so its roleRef never has to change.
    if (type === ROLES)
      return sameContent(existing.rules, desired.rules)
        ? undefined
        : { ...existing, rules: desired.rules };
    return sameContent(existing.subjects, desired.subjects)
      ? undefined
      : { ...existing, subjects: desired.subjects };
  });
}

/** Deletes the lease's own object of that kind, naming its UID; others are left alone. */
async function remove(ports: ControllerPorts, lease: Lease, type: RbacType): Promise<void> {
  const { name, namespace } = lease.metadata;
  const existing = await ports.client.getOrUndefined<RbacObject>(
    type,
    leaseKubeconfigName(name),
    namespace,
  );
  if (existing && isControlledBy(existing, lease))
    await ports.client.deleteIfExists(type, existing);
}

/**
 * Who may read the lease's kubeconfig (spec.subjects): a Role with get on exactly
 * `<lease>-kubeconfig` and a RoleBinding to the subjects, owned by the lease (garbage-collected
 * with it). Without subjects there are none (a lease whose subjects were removed loses them):
 * access is then whatever the namespace's own RBAC grants.
 */
export async function ensureLeaseAccess(
  ports: ControllerPorts,
  lease: Lease,
  writes: AccessWrites = 'read-first',
): Promise<void> {
  if (!lease.spec.subjects?.length) {
    // Nothing can have been granted to a lease whose spec never changed (and so never named
    // subjects): no request then, on the bind path above all.
    if (lease.metadata.generation === 1) return;
    await remove(ports, lease, ROLE_BINDINGS);
    await remove(ports, lease, ROLES);
    return;
  }
  // The Role first: the apiserver lets the operator bind only a Role that exists and grants no
  // more than the operator holds (it has no `bind` verb).
  await ensure(ports, lease, ROLES, buildLeaseRole(lease), writes);
  await ensure(ports, lease, ROLE_BINDINGS, buildLeaseRoleBinding(lease), writes);
}
