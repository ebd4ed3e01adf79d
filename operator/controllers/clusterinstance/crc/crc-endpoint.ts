import { SERVICES } from '../../../../client/api/core-resources.js';
import { ROUTES } from '../../../api/platform-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { Secret } from '../../../kube/workloads.js';
import { checkHostAvailable, newApiHostname, recordedHostname } from '../core/endpoint.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import type { PlatformObject } from '../core/platform-object.js';
import { buildApiRoute, buildApiService } from './crc-builders.js';
import { identityHostname } from './crc-identity-secret.js';
import { crcApiName, identitySecretName } from './crc-naming.js';

/** The instance's API host, and its Route when it has one. */
export interface CrcEndpoint {
  hostname: string;
  route: Stored<PlatformObject> | undefined;
}

/**
 * The API host (docs/reference/instances.md#crc-api-service-and-route): an existing Route keeps its
 * host; without one, the host the identity Secret was issued for, else the recorded endpoint's,
 * else a new
 * `api-<prefix>-<hash>.<domain>` (docs/reference/naming.md#api-host-name). It must agree with the
 * recorded endpoint, and no other Route may serve it.
 */
export async function resolveCrcEndpoint(
  api: InstanceApi,
  objects: InstanceObjects,
): Promise<CrcEndpoint> {
  const instance = objects.instance;
  const recorded = recordedHostname(instance);
  const route = await objects.current<PlatformObject>(ROUTES, crcApiName(instance.metadata.name));
  const hostname = route
    ? await routeHost(objects, route)
    : ((await identityHost(objects)) ?? recorded ?? (await newApiHostname(api, instance)));
  if (recorded && recorded !== hostname)
    throw new OwnershipConflictError(
      `CRC Route host ${hostname} differs from recorded endpoint https://${recorded}`,
    );
  checkHostAvailable(api, hostname, route);
  return { hostname, route };
}

/** The API Service and Route for the host; true when the Route was (re)created now. */
export async function ensureCrcRoute(
  objects: InstanceObjects,
  endpoint: CrcEndpoint,
): Promise<boolean> {
  const instance = objects.instance;
  await objects.ensure(SERVICES, buildApiService(instance));
  if (endpoint.route) return false;
  const { object } = await objects.ensure(ROUTES, buildApiRoute(instance, endpoint.hostname));
  if (object.spec?.host !== endpoint.hostname)
    throw new OwnershipConflictError(
      `CRC Route ${objects.namespace}/${crcApiName(instance.metadata.name)} changed host`,
    );
  return true;
}

/** The host of the instance's existing Route. */
async function routeHost(objects: InstanceObjects, route: Stored<PlatformObject>): Promise<string> {
  await objects.verify(ROUTES, route);
  const host = typeof route.spec?.host === 'string' ? route.spec.host : '';
  if (!host)
    throw new OwnershipConflictError(
      `CRC Route ${objects.namespace}/${route.metadata.name} has no host`,
    );
  return host;
}

/** The host the instance's identity was issued for, if it has one. */
async function identityHost(objects: InstanceObjects): Promise<string | undefined> {
  const name = identitySecretName(objects.instance.metadata.name);
  const secret = await objects.current<Secret>(SECRETS, name);
  if (!secret) return undefined;
  if (!objects.controls(secret))
    throw new OwnershipConflictError(
      `CRC identity Secret ${objects.namespace}/${name} is not controlled by ClusterInstance ${objects.instance.metadata.name}`,
    );
  return identityHostname(secret);
}
