import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROLE_BINDINGS, ROLES } from '../../client/api/core-resources.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  hcpPool,
  lease,
  poolInstance,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { canI } from '../support/tenant.js';
import { waitFor } from '../../dev/support/wait-for.js';

/** spec.subjects: who may read a lease's kubeconfig Secret, and only that Secret. */
const world = useWorld({ namespace: 'lease-access', enabled: true });
const { ns } = world;

interface RbacObject extends KubeObject {
  rules?: unknown[];
  subjects?: unknown[];
  roleRef?: unknown;
}

let manager: Manager;
let counter = 0;

/** A Bound lease of a pool with one Ready instance of its own. */
async function boundLease(
  name: string,
  subjects?: ClusterLease['spec']['subjects'],
): Promise<ClusterLease> {
  const pool = `pool-${counter++}`;
  await ns.api.create(POOLS, hcpPool(ns.name, pool, { maxSize: 1 }));
  await createPoolInstance(ns.api, poolInstance(ns.name, pool, `${pool}-0`));
  await settleInstance(ns.api, ns.name, `${pool}-0`);
  const object = lease(ns.name, name, pool);
  if (subjects) object.spec.subjects = subjects;
  await ns.api.create(LEASES, object);
  return (await waitFor<ClusterLease>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name,
    until: (l) => l?.status?.phase === 'Bound',
  }))!;
}

const rbac = (type: typeof ROLES, name: string): Promise<RbacObject> =>
  ns.api.get<RbacObject>(type, name, ns.name);

beforeAll(async () => {
  manager = await world.startOperator();
});

afterAll(async () => {
  const leases = await ns.api.list<ClusterLease>(LEASES, { namespace: ns.name });
  for (const item of leases.items) await ns.api.delete(LEASES, item.metadata!.name!, ns.name);
  for (const item of leases.items)
    await waitFor(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: item.metadata!.name!,
      until: (l) => l === undefined,
    });
  await manager?.stop();
});

describe('spec.subjects of a ClusterLease', () => {
  it('makes a Role with get on exactly the lease Secret, bound to the subjects, owned by the lease', async () => {
    const bound = await boundLease('job-a', [
      { kind: 'ServiceAccount', name: 'ci' },
      { kind: 'User', name: 'alice' },
      { kind: 'Group', name: 'release-team' },
    ]);
    const owner = {
      apiVersion: LEASES.apiVersion,
      kind: LEASES.kind,
      name: 'job-a',
      uid: bound.metadata!.uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    const role = await rbac(ROLES, 'job-a-kubeconfig');
    expect(role.rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['job-a-kubeconfig'],
        verbs: ['get'],
      },
    ]);
    expect(role.metadata?.ownerReferences).toEqual([owner]);
    const binding = await rbac(ROLE_BINDINGS, 'job-a-kubeconfig');
    expect(binding.metadata?.ownerReferences).toEqual([owner]);
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'job-a-kubeconfig',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'ci', namespace: ns.name },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'release-team' },
    ]);
    const account = `system:serviceaccount:${ns.name}:ci`;
    expect(await canI(ns.name, account, 'get', 'secret/job-a-kubeconfig')).toBe(true);
    expect(await canI(ns.name, 'alice', 'get', 'secret/job-a-kubeconfig')).toBe(true);
    expect(await canI(ns.name, 'alice', 'list', 'secrets')).toBe(false);
    expect(
      await canI(ns.name, 'alice', 'get', `secret/${bound.status!.instanceRef!.name}-kubeconfig`),
    ).toBe(false);
    expect(await canI(ns.name, 'mallory', 'get', 'secret/job-a-kubeconfig')).toBe(false);
  });

  it('follows a change of the subjects while bound, and removes the access when they go', async () => {
    await boundLease('job-b', [{ kind: 'User', name: 'alice' }]);
    await ns.api.patch(
      LEASES,
      { name: 'job-b', namespace: ns.name },
      {
        spec: { subjects: [{ kind: 'User', name: 'bob' }] },
      },
    );
    await waitFor<RbacObject>(ns.kubeConfig, {
      type: ROLE_BINDINGS,
      namespace: ns.name,
      name: 'job-b-kubeconfig',
      until: (b) => JSON.stringify(b?.subjects).includes('"bob"'),
      description: 'the RoleBinding to name bob instead of alice',
    });
    expect(await canI(ns.name, 'alice', 'get', 'secret/job-b-kubeconfig')).toBe(false);
    await ns.api.patch(
      LEASES,
      { name: 'job-b', namespace: ns.name },
      [{ op: 'remove', path: '/spec/subjects' }],
      { patchType: 'json' },
    );
    for (const type of [ROLE_BINDINGS, ROLES])
      await waitFor(ns.kubeConfig, {
        type,
        namespace: ns.name,
        name: 'job-b-kubeconfig',
        until: (object) => object === undefined,
        description: `the lease's ${type.kind} to be removed`,
      });
  });

  it('leaves a lease without subjects to the namespace RBAC (no Role), as before', async () => {
    await boundLease('job-c');
    await expect(rbac(ROLES, 'job-c-kubeconfig')).rejects.toMatchObject({ status: 404 });
    await expect(rbac(ROLE_BINDINGS, 'job-c-kubeconfig')).rejects.toMatchObject({ status: 404 });
  });
});
