import { SERVICES } from '../../../api/core-resources.js';
import { INGRESS_CONFIGS, ROUTES } from '../../../api/platform-resources.js';
import { SECRETS } from '../../../api/resources.js';
import { isNotFound } from '../../../kube/api-error.js';
import type { Secret } from '../../../kube/workloads.js';
import type { Manager } from '../../../runtime/manager.js';
import type { PlatformObject } from '../hcp/hcp-builders.js';
import { endpointHostname } from '../hcp/hcp-endpoint.js';
import { apiHostname, NamingError } from '../hcp/hcp-naming.js';
import { OwnershipConflictError } from '../ownership-conflict.js';
import { buildApiRoute, buildApiService } from './crc-builders.js';
import { identityHostname } from './crc-identity-secret.js';
import { crcApiName, identitySecretName } from './crc-naming.js';
import type { CrcObjects } from './crc-objects.js';
import { controlledBy } from './crc-ownership.js';

/** The API host, and whether status.apiEndpoint must be recorded before anything embeds it. */
export interface CrcEndpoint {
  hostname: string;
  /** Not recorded yet: the caller writes `https://<hostname>` and comes back. */
  record: boolean;
  /** The Route was (re)created in this pass. */
  routeCreated: boolean;
}

/**
 * The API Service and Route (spec §2.3.10). An existing Route keeps its host; a missing one is
 * (re)made with the host the identity Secret was issued for, else the recorded endpoint's, else
 * a new `api-<prefix>-<hash>.<domain>` (spec §4.2). No other Route may serve the host.
 */
export async function ensureCrcEndpoint(
  manager: Manager,
  objects: CrcObjects,
): Promise<CrcEndpoint> {
  const instance = objects.instance;
  await objects.ensure(SERVICES, buildApiService(instance));
  const recorded = instance.status?.apiEndpoint
    ? endpointHostname(instance.status.apiEndpoint)
    : undefined;
  const name = crcApiName(instance.metadata!.name!);
  const route = await objects.current<PlatformObject>(ROUTES, name);
  const hostname = route
    ? await routeHost(objects, route)
    : ((await identityHost(objects)) ?? recorded ?? (await newHostname(manager, objects)));
  if (recorded && recorded !== hostname)
    throw new OwnershipConflictError(
      `CRC Route host ${hostname} differs from recorded endpoint ${instance.status!.apiEndpoint}`,
    );
  checkAvailable(manager, hostname, route);
  if (!recorded) return { hostname, record: true, routeCreated: false };
  if (route) return { hostname, record: false, routeCreated: false };
  const { object } = await objects.ensure(ROUTES, buildApiRoute(instance, hostname));
  if (object.spec?.host !== hostname)
    throw new OwnershipConflictError(`CRC Route ${objects.namespace}/${name} changed host`);
  return { hostname, record: false, routeCreated: true };
}

/** The host of the instance's existing Route. */
async function routeHost(objects: CrcObjects, route: PlatformObject): Promise<string> {
  await objects.verify(ROUTES, route);
  const host = typeof route.spec?.host === 'string' ? route.spec.host : '';
  if (!host)
    throw new OwnershipConflictError(
      `CRC Route ${objects.namespace}/${route.metadata!.name} has no host`,
    );
  return host;
}

/** No other Route anywhere may serve the host. */
function checkAvailable(
  manager: Manager,
  hostname: string,
  route: PlatformObject | undefined,
): void {
  const taken = manager
    .informer<PlatformObject>(ROUTES)
    .list((r) => r.spec?.host === hostname && r.metadata?.uid !== route?.metadata?.uid);
  if (taken.length > 0)
    throw new OwnershipConflictError(
      `API hostname "${hostname}" is already used by Route ${taken[0]!.metadata!.namespace}/${taken[0]!.metadata!.name}`,
    );
}

/** The host the instance's identity was issued for, if it has one. */
async function identityHost(objects: CrcObjects): Promise<string | undefined> {
  const name = identitySecretName(objects.instance.metadata!.name!);
  const secret = await objects.current<Secret>(SECRETS, name);
  if (!secret) return undefined;
  if (!controlledBy(secret, objects.instance))
    throw new OwnershipConflictError(
      `CRC identity Secret ${objects.namespace}/${name} is not controlled by ClusterInstance ${objects.instance.metadata!.name}`,
    );
  return identityHostname(secret);
}

async function newHostname(manager: Manager, objects: CrcObjects): Promise<string> {
  let domain = '';
  try {
    const ingress = await manager.client.get<PlatformObject>(INGRESS_CONFIGS, 'cluster');
    domain = typeof ingress.spec?.domain === 'string' ? ingress.spec.domain : '';
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (!domain)
    throw new Error(
      'the management ingress domain is unknown: ingresses.config.openshift.io/cluster has no spec.domain',
    );
  try {
    const instance = objects.instance;
    return apiHostname(instance.metadata!.name!, instance.metadata!.namespace!, domain);
  } catch (error) {
    if (error instanceof NamingError) throw new OwnershipConflictError(error.message);
    throw error;
  }
}
