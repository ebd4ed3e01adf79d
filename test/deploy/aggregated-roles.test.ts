import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CLUSTER_ROLES, ROLE_BINDINGS } from '../../client/api/core-resources.js';
import { BUNDLES, VERSION_STREAMS } from '../../client/api/resources.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { canI, impersonating } from '../support/tenant.js';

/**
 * The aggregated ClusterRoles of operator/deploy, as the real apiserver's authorizer sees them
 * once the kube-controller-manager has folded them into admin, edit and view: users bound to
 * those roles in one namespace, asked with `kubectl auth can-i`.
 */
const world = useWorld({ namespace: 'roles' });
const { ns } = world;
const ROLES_FILE = path.join(projectRoot(), 'operator', 'deploy', 'aggregated-roles.yaml');
const GROUP = 'guestcluster.opdev.io';
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ = ['get', 'list', 'watch'];
const user = (role: string): string => `${ns.name}-${role}`;

type ClusterRole = KubeObject & { rules?: { resources?: string[]; verbs?: string[] }[] };

/**
 * What `role`'s user may do with our kinds in the namespace, by resource (`kubectl auth can-i
 * --list`, the authorizer's rules for the user): sorted verbs.
 */
async function ourRules(role: string): Promise<Record<string, string[]>> {
  const { stdout } = await kubectl([
    'auth',
    'can-i',
    '--list',
    '-n',
    ns.name,
    `--as=${user(role)}`,
  ]);
  const verbs: Record<string, Set<string>> = {};
  for (const line of stdout.split('\n')) {
    const match = /^(\S+)\.guestcluster\.opdev\.io\s.*\[([^\]]*)\]\s*$/.exec(line);
    if (!match) continue;
    const set = (verbs[match[1]!] ??= new Set());
    for (const verb of match[2]!.split(' ').filter(Boolean)) set.add(verb);
  }
  return Object.fromEntries(Object.entries(verbs).map(([r, v]) => [r, [...v].sort()]));
}

const sorted = (verbs: string[]): string[] => [...verbs].sort();

beforeAll(async () => {
  await kubectl(['apply', '-f', ROLES_FILE]);
  for (const role of ['admin', 'edit', 'view'])
    await ns.api.create(ROLE_BINDINGS, {
      apiVersion: ROLE_BINDINGS.apiVersion,
      kind: ROLE_BINDINGS.kind,
      metadata: { name: role, namespace: ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user(role) }],
    } as KubeObject);
  // The aggregation controller folds them in: admin last (view into edit, edit into admin).
  for (const role of ['view', 'edit', 'admin'])
    await waitFor<ClusterRole>(ns.kubeConfig, {
      type: CLUSTER_ROLES,
      name: role,
      until: (r) =>
        !!r?.rules?.some((rule) => rule.resources?.includes('clusterinstances')) &&
        (role === 'view' ||
          !!r.rules.some(
            (rule) =>
              rule.verbs?.includes('deletecollection') && rule.resources?.includes('clusterleases'),
          )),
      description: `the ${role} ClusterRole to hold the aggregated rules`,
    });
});

afterAll(async () => {
  await kubectl(['delete', '-f', ROLES_FILE, '--ignore-not-found']);
});

describe('the aggregated roles', () => {
  it.each(['admin', 'edit'])(
    'let a namespace %s manage pools and leases and only read instances',
    async (role) => {
      const rules = await ourRules(role);
      expect(rules.clusterpools).toEqual(sorted([...READ, ...WRITE]));
      expect(rules.clusterleases).toEqual(sorted([...READ, ...WRITE]));
      expect(rules.clusterinstances).toEqual(sorted(READ));
    },
  );

  it('let a namespace viewer read pools, leases and instances, and write nothing', async () => {
    const rules = await ourRules('view');
    for (const resource of ['clusterpools', 'clusterleases', 'clusterinstances'])
      expect(rules[resource]).toEqual(sorted(READ));
  });

  it.each(['admin', 'edit', 'view'])(
    'leave instances and every status to the operator for a namespace %s (can-i)',
    async (role) => {
      const can = (verb: string, resource: string, subresource?: string): Promise<boolean> =>
        canI(ns.name, user(role), verb, `${resource}.${GROUP}`, subresource);
      expect(await can('get', 'clusterinstances')).toBe(true);
      expect(await can('create', 'clusterinstances')).toBe(false);
      expect(await can('delete', 'clusterinstances')).toBe(false);
      expect(await can('create', 'clusterleases')).toBe(role !== 'view');
      for (const resource of ['clusterpools', 'clusterleases', 'clusterinstances'])
        expect(await can('update', resource, 'status')).toBe(false);
    },
  );

  it.each([BUNDLES, VERSION_STREAMS])(
    'grant nothing on the cluster-scoped $plural through a namespace binding',
    async (type) => {
      // A namespaced can-i would count the RoleBinding: the real, cluster-scoped request decides.
      for (const role of ['admin', 'edit', 'view']) {
        const api = new ApiClient(impersonating(ns.kubeConfig, user(role)));
        try {
          await expect(api.list(type)).rejects.toMatchObject({ status: 403 });
        } finally {
          await api.close();
        }
      }
    },
  );

  it('let a cluster-wide viewer read VersionStreams', async () => {
    const name = `${ns.name}-cluster-view`;
    await kubectl(['create', 'clusterrolebinding', name, '--clusterrole=view', `--user=${name}`]);
    const api = new ApiClient(impersonating(ns.kubeConfig, name));
    try {
      await expect(api.list(VERSION_STREAMS)).resolves.toBeDefined();
      expect(await canI(ns.name, name, 'update', `versionstreams.${GROUP}`, 'status')).toBe(false);
    } finally {
      await api.close();
      await kubectl(['delete', 'clusterrolebinding', name]);
    }
  });
});
