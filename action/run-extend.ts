import * as core from '@actions/core';
import { ApiClient } from '../client/kube/api-client.js';
import type { ActionCore } from './action-core.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import { extendLease } from '../client/lease/extend-lease.js';
import { InputError, readAccess } from './inputs.js';
import { inputAccess } from './management-access.js';
import { maskManagementInputs } from './masking.js';

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function required(actions: ActionCore, name: string): string {
  const value = actions.getInput(name);
  if (!value) throw new InputError(`Input "${name}" is not set`);
  return value;
}

/**
 * The companion action guestcluster/lease/extend (extend/action.yml): sets a lease's spec.ttl,
 * which counts from binding, so that a long job keeps its cluster. A TTL beyond the pool's
 * spec.maxLeaseDuration fails the step with admission's message, which names the cap; the lease
 * keeps its TTL then. It reaches the management cluster as the lease step does, `auth:
 * github-oidc` included.
 */
export async function runExtend(actions: ActionCore = core): Promise<void> {
  let api: ApiClient | undefined;
  try {
    maskManagementInputs(actions);
    const access = readAccess((name) => actions.getInput(name));
    const namespace = actions.getInput('namespace') || access.namespace || '';
    if (!namespace)
      throw new InputError(
        'Input "namespace" is not set, and the kubeconfig\'s context names none',
      );
    const name = required(actions, 'lease-name');
    if (!NAME.test(name))
      throw new InputError(`Input "lease-name" is "${name}"; expected a ClusterLease name`);
    const ttl = required(actions, 'ttl');
    // With auth github-oidc, the job's ID token is exchanged here too (the step is a process of
    // its own and holds nothing of main's).
    api = new ApiClient(inputAccess(actions, namespace));
    const { expiresAt } = await extendLease(api, namespace, name, ttl);
    actions.setOutput('ttl', ttl);
    actions.setOutput('expires-at', expiresAt ?? '');
    actions.info(
      `Set the TTL of ClusterLease ${namespace}/${name} to ${ttl} (counted from binding)${expiresAt ? `: it is released at ${expiresAt}` : ''}`,
    );
  } catch (error) {
    actions.setFailed(errorMessage(error));
  } finally {
    await api?.close();
  }
}
