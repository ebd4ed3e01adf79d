import type { ClusterInstance } from '../../api/resources.js';
import { InstanceFailure, Reason } from './instance-status.js';

const DEFAULT_PULL_SECRET = 'pull-secret';

/**
 * The pull secret of an instance (spec §2.3.1): `template.pullSecretRef`, else `pull-secret`, in
 * the instance's namespace with data key `.dockerconfigjson`. Both topologies use it in place, so
 * this returns its name; anything wrong fails the instance with `InvalidPullSecret`.
 */
export async function resolvePullSecret(
  instance: ClusterInstance,
  read: (name: string) => Promise<{ data?: Record<string, string> } | undefined>,
): Promise<string> {
  const namespace = instance.metadata!.namespace!;
  const named = instance.spec.template.pullSecretRef?.name;
  const name = named || DEFAULT_PULL_SECRET;
  const secret = await read(name);
  if (!secret)
    throw new InstanceFailure(
      Reason.InvalidPullSecret,
      named
        ? `pull secret ${namespace}/${name} not found`
        : `template.pullSecretRef is unset and default pull secret ${namespace}/${DEFAULT_PULL_SECRET} was not found`,
    );
  if (!secret.data?.['.dockerconfigjson'])
    throw new InstanceFailure(
      Reason.InvalidPullSecret,
      `pull secret ${namespace}/${name} is missing data key ".dockerconfigjson"`,
    );
  return name;
}
