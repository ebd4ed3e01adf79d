import type { ClusterAccess } from '../client/kube/api-client.js';
import { clusterAccess } from '../client/kube/cluster-access.js';
import type { KubeconfigContext } from '../client/kube/kubeconfig.js';
import { exchangedAccess } from '../client/lease/exchanged-access.js';
import type { ActionCore } from './action-core.js';
import type { OidcAuth } from './inputs.js';
import { readAccess, readOidcAuth } from './inputs.js';

/**
 * How the Action reaches the management cluster: the inputs' token or kubeconfig, or with
 * `auth: github-oidc` a token exchanged for the job's ID token, masked at once and kept in
 * memory only (docs/ci-identities.md#the-github-action).
 */
export function managementAccess(
  actions: Pick<ActionCore, 'getIDToken' | 'setSecret' | 'info'>,
  context: KubeconfigContext,
  auth: OidcAuth | undefined,
  namespace: string | undefined,
): ClusterAccess {
  if (!auth) return clusterAccess(context);
  return exchangedAccess(context, {
    idToken: () => actions.getIDToken(auth.audience),
    endpoint: auth.endpoint,
    namespace,
    secret: (value) => actions.setSecret(value),
    exchanged: (token) =>
      actions.info(
        `Exchanged the job's ID token for a token of ServiceAccount ${token.namespace}/${token.serviceAccount} (CIAccessPolicy ${token.policy}, rule ${token.rule}), valid until ${token.expirationTimestamp}`,
      ),
  });
}

/** The management cluster as the step's inputs say, for the lease of `namespace` (post, hold). */
export function inputAccess(
  actions: Pick<ActionCore, 'getIDToken' | 'setSecret' | 'info' | 'getInput'>,
  namespace: string | undefined,
): ClusterAccess {
  const input = (name: string): string => actions.getInput(name);
  const auth = readOidcAuth(input);
  return managementAccess(actions, readAccess(input), auth, namespace);
}
