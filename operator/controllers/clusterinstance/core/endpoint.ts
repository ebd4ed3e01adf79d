import { INGRESS_CONFIGS, ROUTES } from '../../../api/platform-resources.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { apiHostname, NamingError } from './naming.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import type { PlatformObject } from './platform-object.js';
import { InstanceFailure, Reason } from './reasons.js';

/*
 * The instance's API endpoint, `https://<host>` behind a passthrough Route
 * (docs/reference/instances.md#hcp-provisioning,
 * docs/reference/instances.md#crc-api-service-and-route): what both topologies share about choosing
 * and keeping its host.
 */

/** The host name of a recorded `https://<hostname>` endpoint (no port, path, query or fragment). */
export function endpointHostname(endpoint: string): string {
  const match = /^https:\/\/([^/:?#]+)$/.exec(endpoint);
  if (!match)
    throw new OwnershipConflictError(
      `recorded apiEndpoint "${endpoint}" is not https://<hostname>`,
    );
  return match[1]!;
}

/** The endpoint recorded in the instance's status, as a host name; undefined when none is. */
export function recordedHostname(instance: Instance): string | undefined {
  const endpoint = instance.status?.apiEndpoint;
  return endpoint ? endpointHostname(endpoint) : undefined;
}

/**
 * A new endpoint's host: `api-<prefix>-<hash>.<management ingress domain>`
 * (docs/reference/naming.md#api-host-name).
 */
export async function newApiHostname(api: InstanceApi, instance: Instance): Promise<string> {
  const ingress = await api.get<PlatformObject>(INGRESS_CONFIGS, 'cluster');
  const domain = typeof ingress?.spec?.domain === 'string' ? ingress.spec.domain : '';
  if (!domain)
    throw new InstanceFailure(
      Reason.ReconcileError,
      'the management ingress domain is unknown: ingresses.config.openshift.io/cluster has no spec.domain',
    );
  try {
    return apiHostname(instance.metadata.name, instance.metadata.namespace, domain);
  } catch (error) {
    if (error instanceof NamingError) throw new OwnershipConflictError(error.message);
    throw error;
  }
}

/** No Route anywhere but the instance's own (`route`, when it has one) may serve the host. */
export function checkHostAvailable(
  api: InstanceApi,
  hostname: string,
  route: PlatformObject | undefined,
): void {
  const taken = api.cachedList<PlatformObject>(
    ROUTES,
    (r) => r.spec?.host === hostname && r.metadata?.uid !== route?.metadata?.uid,
  );
  if (taken.length > 0)
    throw new OwnershipConflictError(
      `API hostname "${hostname}" is already used by Route ${taken[0]!.metadata.namespace}/${taken[0]!.metadata.name}`,
    );
}
