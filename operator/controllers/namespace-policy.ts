import { LABEL_NAMESPACE_ENABLED } from '../api/labels.js';
import { NAMESPACES } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { isNotFound } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import type { Manager } from '../runtime/manager.js';

export interface NamespacePolicy {
  enabled: boolean;
  /** Missing or terminating: no new allocations at all. */
  terminating: boolean;
  reason:
    'NamespaceEnabled' | 'NamespaceDisabled' | 'NamespaceTerminating' | 'NamespaceUnavailable';
  message: string;
}

/** The namespace opt-in (spec §2.5), read live: new capacity needs guestcluster.opdev.io/enabled="true". */
async function readNamespacePolicy(client: ApiClient, namespace: string): Promise<NamespacePolicy> {
  try {
    return namespacePolicyOf(await client.get(NAMESPACES, namespace));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    return namespacePolicyOf(undefined);
  }
}

/**
 * The namespace opt-in from the manager's Namespace cache; read live only when the cache does not
 * know the namespace (yet). Every pass of the pool, lease and instance controllers asks.
 */
export async function namespacePolicy(
  manager: Manager,
  namespace: string,
): Promise<NamespacePolicy> {
  const cached = manager.informer<KubeObject>(NAMESPACES).get(namespace);
  return cached ? namespacePolicyOf(cached) : readNamespacePolicy(manager.client, namespace);
}

/** The policy a Namespace object implies (undefined: it does not exist). */
function namespacePolicyOf(
  object: (KubeObject & { status?: { phase?: string } }) | undefined,
): NamespacePolicy {
  if (!object) {
    return {
      enabled: false,
      terminating: true,
      reason: 'NamespaceUnavailable',
      message: 'Source namespace no longer exists',
    };
  }
  if (object.metadata?.deletionTimestamp || object.status?.phase === 'Terminating') {
    return {
      enabled: false,
      terminating: true,
      reason: 'NamespaceTerminating',
      message: 'Source namespace is terminating; new allocations are disabled',
    };
  }
  if (object.metadata?.labels?.[LABEL_NAMESPACE_ENABLED] !== 'true') {
    return {
      enabled: false,
      terminating: false,
      reason: 'NamespaceDisabled',
      message: `New provisioning requires namespace label ${LABEL_NAMESPACE_ENABLED}="true"`,
    };
  }
  return {
    enabled: true,
    terminating: false,
    reason: 'NamespaceEnabled',
    message: 'Source namespace permits new provisioning',
  };
}
