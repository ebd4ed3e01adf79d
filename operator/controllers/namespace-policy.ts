import { LABEL_NAMESPACE_ENABLED } from '../api/labels.js';
import { NAMESPACES } from '../../client/api/resources.js';
import type { KubeObject } from '../kube/objects.js';
import type { ControllerPorts } from '../runtime/ports.js';

export interface NamespacePolicy {
  enabled: boolean;
  /** Missing or terminating: no new allocations at all. */
  terminating: boolean;
  reason:
    | 'NamespaceEnabled'
    | 'NamespaceDisabled'
    | 'NamespaceTerminating'
    | 'NamespaceUnavailable'
    | 'BundleValidation';
  message: string;
}

type NamespaceObject = KubeObject & { status?: { phase?: string } };

/**
 * The namespace opt-in (docs/reference/instances.md#namespace-policy): new capacity needs
 * guestcluster.opdev.io/enabled="true". From the Namespace cache; read live only when the cache
 * does not know the namespace (yet). Every pass of the pool, lease and instance controllers asks.
 */
export async function namespacePolicyFrom(
  ports: Pick<ControllerPorts, 'cache' | 'client'>,
  namespace: string,
): Promise<NamespacePolicy> {
  const cached = (await ports.cache.read<NamespaceObject>(NAMESPACES)).get(namespace);
  return namespacePolicyOf(
    cached ?? (await ports.client.getOrUndefined<NamespaceObject>(NAMESPACES, namespace)),
  );
}

/** The policy a Namespace object implies (undefined: it does not exist). */
function namespacePolicyOf(object: NamespaceObject | undefined): NamespacePolicy {
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
