import type https from 'node:https';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ROLES, ROLE_BINDINGS } from '../../client/api/core-resources.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { CommandFailedError } from '../../dev/control-plane/run-command.js';
import { kubectl } from './kubectl.js';

/** A rule of a namespaced Role. */
export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/**
 * A person or CI identity with rights in one namespace only: a Role with `rules` bound to the
 * user `name`, and a client that acts as that user through the apiserver's impersonation (the
 * admin impersonates; every request is authorized as the user alone).
 */
export class Tenant {
  private constructor(
    readonly name: string,
    readonly api: ApiClient,
  ) {}

  static async create(
    admin: { kubeConfig: ClusterAccess; api: ApiClient },
    namespace: string,
    name: string,
    rules: Rule[],
  ): Promise<Tenant> {
    const metadata = { name, namespace };
    await admin.api.create(ROLES, {
      apiVersion: ROLES.apiVersion,
      kind: ROLES.kind,
      metadata,
      rules,
    } as KubeObject);
    await admin.api.create(ROLE_BINDINGS, {
      apiVersion: ROLE_BINDINGS.apiVersion,
      kind: ROLE_BINDINGS.kind,
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
    } as KubeObject);
    return new Tenant(name, new ApiClient(impersonating(admin.kubeConfig, name)));
  }

  /** `kubectl auth can-i <verb> <resource> --as=<tenant>` in the namespace. */
  async can(namespace: string, verb: string, resource: string): Promise<boolean> {
    return canI(namespace, this.name, verb, resource);
  }

  async close(): Promise<void> {
    await this.api.close();
  }
}

/** Admin access that sends every request as `user` (Impersonate-User). */
export function impersonating(
  kubeConfig: ClusterAccess,
  user: string,
): ConstructorParameters<typeof ApiClient>[0] {
  return {
    getCurrentCluster: () => kubeConfig.getCurrentCluster(),
    applyToHTTPSOptions: async (options: https.RequestOptions): Promise<void> => {
      await kubeConfig.applyToHTTPSOptions(options);
      options.headers = { ...options.headers, 'Impersonate-User': user };
    },
  };
}

/** What the real apiserver's authorizer says of `as` (`kubectl auth can-i`, exit status 0 or 1). */
export async function canI(
  namespace: string,
  as: string,
  verb: string,
  resource: string,
  subresource?: string,
): Promise<boolean> {
  const sub = subresource ? [`--subresource=${subresource}`] : [];
  try {
    await kubectl(['auth', 'can-i', verb, resource, ...sub, '-n', namespace, `--as=${as}`]);
    return true;
  } catch (error) {
    if (error instanceof CommandFailedError && error.exitCode === 1 && /^no\b/.test(error.stdout))
      return false;
    throw error;
  }
}
