import type { BindingManifest, Manifest, PolicyRule, RoleManifest } from './manifests.js';

/** One entry of a CSV's `permissions` or `clusterPermissions`. */
export interface StrategyPermission {
  serviceAccountName: string;
  rules: PolicyRule[];
}

export interface InstallPermissions {
  /** Roles bound in the operator namespace (OLM creates Role and RoleBinding there). */
  permissions: StrategyPermission[];
  /** ClusterRoles bound cluster-wide (OLM creates ClusterRole and ClusterRoleBinding). */
  clusterPermissions: StrategyPermission[];
  /** The manifests these replace: the ServiceAccounts, their roles and bindings. */
  absorbed: Set<Manifest>;
}

function roleKey(kind: string, name: string, namespace?: string): string {
  return kind === 'ClusterRole' ? `ClusterRole/${name}` : `Role/${namespace}/${name}`;
}

/** Whether a binding grants the deploy's own accounts only, in the operator namespace. */
function bindsOwnAccounts(
  binding: BindingManifest,
  accounts: ReadonlyMap<string, Manifest>,
  operatorNamespace: string,
): boolean {
  if (binding.kind === 'RoleBinding' && binding.metadata.namespace !== operatorNamespace)
    return false;
  return (binding.subjects ?? []).every(
    (s) => s.kind === 'ServiceAccount' && s.namespace === operatorNamespace && accounts.has(s.name),
  );
}

/**
 * Turns what operator/deploy grants its own ServiceAccounts into the CSV's install permissions,
 * as OLM expects them: OLM creates the accounts, and from these entries the roles and bindings.
 * A binding whose subjects are not all the deploy's own accounts stays a manifest of its own, and
 * so does a role that such a binding or nothing at all uses (the crc-agent's, an aggregated one).
 */
export function installPermissions(
  manifests: readonly Manifest[],
  operatorNamespace: string,
): InstallPermissions {
  const accounts = new Map(
    manifests
      .filter((m) => m.kind === 'ServiceAccount' && m.metadata.namespace === operatorNamespace)
      .map((m) => [m.metadata.name, m]),
  );
  const roles = new Map(
    manifests
      .filter((m): m is RoleManifest => m.kind === 'Role' || m.kind === 'ClusterRole')
      .map((m) => [roleKey(m.kind, m.metadata.name, m.metadata.namespace), m]),
  );
  const namespaced = new Map<string, PolicyRule[]>();
  const clusterWide = new Map<string, PolicyRule[]>();
  const absorbed = new Set<Manifest>(accounts.values());
  const keptRoles = new Set<string>();
  for (const binding of manifests.filter(
    (m): m is BindingManifest => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding',
  )) {
    const key = roleKey(binding.roleRef.kind, binding.roleRef.name, binding.metadata.namespace);
    if (!bindsOwnAccounts(binding, accounts, operatorNamespace)) {
      keptRoles.add(key);
      continue;
    }
    const role = roles.get(key);
    if (!role?.rules)
      throw new Error(
        `${binding.kind} ${binding.metadata.name} binds ${binding.roleRef.kind} ${binding.roleRef.name}, which operator/deploy does not define with rules: a CSV permission needs the rules themselves`,
      );
    const target = binding.kind === 'ClusterRoleBinding' ? clusterWide : namespaced;
    for (const subject of binding.subjects ?? [])
      target.set(subject.name, [...(target.get(subject.name) ?? []), ...role.rules]);
    absorbed.add(binding);
    absorbed.add(role);
  }
  for (const key of keptRoles) {
    const role = roles.get(key);
    if (role) absorbed.delete(role);
  }
  const entries = (byAccount: Map<string, PolicyRule[]>): StrategyPermission[] =>
    [...byAccount].map(([serviceAccountName, rules]) => ({ serviceAccountName, rules }));
  // An account without any role still has to be created: OLM creates the accounts it names.
  for (const name of accounts.keys())
    if (!namespaced.has(name) && !clusterWide.has(name)) namespaced.set(name, []);
  return { permissions: entries(namespaced), clusterPermissions: entries(clusterWide), absorbed };
}
