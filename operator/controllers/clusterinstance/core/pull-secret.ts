import { SECRETS } from '../../../../client/api/resources.js';
import { pullSecretProblem } from '../../../kube/docker-config.js';
import type { Secret } from '../../../kube/workloads.js';
import type { InstanceObjects } from './instance-objects.js';
import { InstanceFailure, Reason } from './reasons.js';

const DEFAULT_PULL_SECRET = 'pull-secret';

/**
 * The pull secret of an instance (docs/reference/instances.md#common-steps):
 * `template.pullSecretRef`, else `pull-secret`, in the instance's namespace with data key
 * `.dockerconfigjson`, whose content container runtimes can read (operator/kube/docker-config.ts).
 * Both topologies use it in place, so this returns its name; anything wrong fails the instance
 * with `InvalidPullSecret`.
 */
export async function resolvePullSecret(objects: InstanceObjects): Promise<string> {
  const namespace = objects.namespace;
  const named = objects.instance.spec.template.pullSecretRef?.name;
  const name = named || DEFAULT_PULL_SECRET;
  const secret = await objects.current<Secret>(SECRETS, name);
  if (!secret)
    throw new InstanceFailure(
      Reason.InvalidPullSecret,
      named
        ? `pull secret ${namespace}/${name} not found`
        : `template.pullSecretRef is unset and default pull secret ${namespace}/${DEFAULT_PULL_SECRET} was not found`,
    );
  const problem = pullSecretProblem(`pull secret ${namespace}/${name}`, secret.data);
  if (problem) throw new InstanceFailure(Reason.InvalidPullSecret, problem);
  return name;
}
