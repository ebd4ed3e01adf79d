import { readFile } from 'node:fs/promises';

/** "group/resource[/subresource]:verb", with "core" for the core group. */
export type Permission = string;

interface AuditEvent {
  verb: string;
  user: { username: string };
  objectRef?: { apiGroup?: string; resource?: string; subresource?: string };
  responseStatus?: { code?: number };
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
}

const permission = (group: string, resource: string, verb: string): Permission =>
  `${group || 'core'}/${resource}:${verb}`;

/** What `username` asked the apiserver for, according to the audit log. */
export async function requestedPermissions(
  auditLog: string,
  username: string,
): Promise<Set<Permission>> {
  const used = new Set<Permission>();
  for (const line of (await readFile(auditLog, 'utf8')).split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as AuditEvent;
    const ref = event.objectRef;
    if (event.user.username !== username || !ref?.resource) continue;
    const resource = ref.subresource ? `${ref.resource}/${ref.subresource}` : ref.resource;
    used.add(permission(ref.apiGroup ?? '', resource, event.verb));
  }
  return used;
}

/** Every permission a list of RBAC rules grants (no wildcards are expected in ours). */
export function grantedPermissions(rules: PolicyRule[]): Set<Permission> {
  const granted = new Set<Permission>();
  for (const rule of rules)
    for (const group of rule.apiGroups ?? [''])
      for (const resource of rule.resources ?? [])
        for (const verb of rule.verbs) granted.add(permission(group, resource, verb));
  return granted;
}

/**
 * The permissions a Markdown table lists, as "<role> <permission>": rows of
 * `| role | API group | resource | verbs | why |`, the group `core` or in backticks.
 */
export function documentedPermissions(markdown: string): Set<string> {
  const documented = new Set<string>();
  for (const line of markdown.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (cells.length < 7 || cells[1] === 'role' || /^-+$/.test(cells[1]!)) continue;
    const [, role, group, resource, verbs] = cells;
    const unquote = (text: string): string => text.replace(/`/g, '');
    for (const verb of verbs!.split(',').map((v) => v.trim()))
      documented.add(
        `${role} ${permission(group === 'core' ? '' : unquote(group!), unquote(resource!), verb)}`,
      );
  }
  return documented;
}
