import { describe, expect, it } from '@jest/globals';
import { installPermissions } from './install-permissions.js';
import type { Manifest } from './manifests.js';

const NS = 'operator-ns';
const account = (name: string): Manifest => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name, namespace: NS },
});
const rules = (resource: string) => [{ apiGroups: [''], resources: [resource], verbs: ['get'] }];
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  roleKind: 'Role' | 'ClusterRole',
  role: string,
  subjects: { kind: string; name: string; namespace?: string }[],
  namespace?: string,
): Manifest => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name: `${role}-binding`, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
  subjects,
});

describe('installPermissions', () => {
  const manager = { kind: 'ServiceAccount', name: 'manager', namespace: NS };
  const clusterRole = (name: string, resource: string): Manifest => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name },
    rules: rules(resource),
  });
  const role: Manifest = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'leader', namespace: NS },
    rules: rules('leases'),
  };

  it('makes cluster and namespace bindings of its own accounts CSV permissions', () => {
    const manifests = [
      account('manager'),
      account('idle'),
      clusterRole('manager-role', 'pods'),
      role,
      binding('ClusterRoleBinding', 'ClusterRole', 'manager-role', [manager]),
      binding('RoleBinding', 'Role', 'leader', [manager], NS),
    ];
    const result = installPermissions(manifests, NS);
    expect(result.clusterPermissions).toEqual([
      { serviceAccountName: 'manager', rules: rules('pods') },
    ]);
    expect(result.permissions).toEqual([
      { serviceAccountName: 'manager', rules: rules('leases') },
      { serviceAccountName: 'idle', rules: [] },
    ]);
    expect(result.absorbed.size).toBe(manifests.length);
  });

  it('keeps a binding to someone else, and its role, as manifests of their own', () => {
    const reader = clusterRole('metrics-reader', 'pods');
    const foreign = binding('ClusterRoleBinding', 'ClusterRole', 'metrics-reader', [
      manager,
      { kind: 'User', name: 'alice' },
    ]);
    const unbound = clusterRole('agent-role', 'secrets');
    const result = installPermissions([account('manager'), reader, foreign, unbound], NS);
    expect(result.clusterPermissions).toEqual([]);
    expect([...result.absorbed].map((m) => m.metadata.name)).toEqual(['manager']);
  });

  it('refuses a binding to a role the manifests do not define', () => {
    expect(() =>
      installPermissions(
        [account('manager'), binding('ClusterRoleBinding', 'ClusterRole', 'view', [manager])],
        NS,
      ),
    ).toThrow(/binds ClusterRole view, which operator\/deploy does not define/);
  });
});
