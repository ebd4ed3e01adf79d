import type { ClusterInstance } from '../../../api/resources.js';
import { SECRETS } from '../../../api/resources.js';
import { HOSTED_CLUSTERS, INGRESS_CONFIGS, ROUTES } from '../../../api/platform-resources.js';
import { isAlreadyExists, isNotFound } from '../../../kube/api-error.js';
import type { Manager } from '../../../runtime/manager.js';
import type { PlatformObject, SecretObject } from './hcp-builders.js';
import { buildKasSecret } from './hcp-builders.js';
import {
  apiHostname,
  apiRouteName,
  isDns1123Subdomain,
  kasServingCertName,
  NamingError,
} from './hcp-naming.js';
import { OwnershipConflictError } from '../ownership-conflict.js';
import { verifyOwnership } from './hcp-ownership.js';
import type { HcpPlacement } from './hcp-placement.js';
import {
  certificateHostname,
  issueKasServingCert,
  kasServingCertUsable,
} from './kas-serving-cert.js';
import { InstanceFailure, Reason } from '../instance-status.js';

interface NamedCertificate {
  names?: string[];
  servingCertificate?: { name?: string };
}

const decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString('utf8');

/** The host name of a recorded `https://<hostname>` endpoint (no port, path, query or fragment). */
export function endpointHostname(endpoint: string): string {
  const match = /^https:\/\/([^/:?#]+)$/.exec(endpoint);
  if (!match)
    throw new OwnershipConflictError(
      `recorded apiEndpoint "${endpoint}" is not https://<hostname>`,
    );
  return match[1]!;
}

/**
 * The instance's API host name (spec §2.3.4 "Resolve API hostname"): what its HostedCluster, KAS
 * certificate and Route prove, which must agree with each other and with status.apiEndpoint; else
 * a new `api-<prefix>-<hash>.<domain>`. No other Route may serve the same host.
 */
export async function resolveApiHostname(
  manager: Manager,
  instance: ClusterInstance,
  placement: HcpPlacement,
): Promise<string> {
  const route = manager
    .informer<PlatformObject>(ROUTES)
    .get(`${placement.controlPlaneNamespace}/${apiRouteName(instance.metadata!.name!)}`);
  const evidence = await hostnameEvidence(manager, instance, placement, route);
  const hosts = new Set(evidence.values());
  if (hosts.size > 1)
    throw new OwnershipConflictError(
      `conflicting API hostnames in existing resources: ${[...evidence].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  const hostname = [...hosts][0] ?? (await newHostname(manager, instance));
  if (!isDns1123Subdomain(hostname))
    throw new OwnershipConflictError(`API hostname "${hostname}" is not a DNS-1123 subdomain`);
  const taken = manager
    .informer<PlatformObject>(ROUTES)
    .list((r) => r.spec?.host === hostname && r !== route);
  if (taken.length > 0)
    throw new OwnershipConflictError(
      `API hostname "${hostname}" is already used by Route ${taken[0]!.metadata!.namespace}/${taken[0]!.metadata!.name}`,
    );
  return hostname;
}

/** The host names the instance's existing objects and status prove, by where they were found. */
async function hostnameEvidence(
  manager: Manager,
  instance: ClusterInstance,
  placement: HcpPlacement,
  route: PlatformObject | undefined,
): Promise<Map<string, string>> {
  const name = instance.metadata!.name!;
  const evidence = new Map<string, string>();
  const hostedCluster = manager
    .informer<PlatformObject>(HOSTED_CLUSTERS)
    .get(`${placement.hostedClusterNamespace}/${placement.hostedClusterName}`);
  if (hostedCluster) evidence.set('HostedCluster', namedHost(hostedCluster, name));
  const cert = await liveSecret(
    manager,
    placement.hostedClusterNamespace,
    kasServingCertName(name),
  );
  if (cert) {
    verifyOwnership(cert, instance, 'Secret');
    const host = certificateHostname(decode(cert.data?.['tls.crt']));
    if (host) evidence.set('KAS serving certificate', host);
  }
  const routeHost = route?.spec?.host;
  if (typeof routeHost === 'string' && routeHost) {
    verifyOwnership(route, instance, 'Route');
    evidence.set('Route', routeHost);
  }
  if (instance.status?.apiEndpoint)
    evidence.set('status.apiEndpoint', endpointHostname(instance.status.apiEndpoint));
  return evidence;
}

/** The one host name the HostedCluster serves with the instance's KAS certificate. */
function namedHost(hostedCluster: PlatformObject, instance: string): string {
  const configuration = hostedCluster.spec?.configuration as
    { apiServer?: { servingCerts?: { namedCertificates?: NamedCertificate[] } } } | undefined;
  const names = (configuration?.apiServer?.servingCerts?.namedCertificates ?? [])
    .filter((c) => c.servingCertificate?.name === kasServingCertName(instance))
    .flatMap((c) => c.names ?? []);
  if (names.length !== 1 || !names[0])
    throw new OwnershipConflictError(
      `HostedCluster ${hostedCluster.metadata!.name} does not name exactly one API host for ${kasServingCertName(instance)}`,
    );
  return names[0];
}

async function newHostname(manager: Manager, instance: ClusterInstance): Promise<string> {
  let domain = '';
  try {
    const ingress = await manager.client.get<PlatformObject>(INGRESS_CONFIGS, 'cluster');
    const configured = ingress.spec?.domain;
    domain = typeof configured === 'string' ? configured : '';
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (!domain)
    throw new InstanceFailure(
      Reason.ReconcileError,
      'the management ingress domain is unknown: ingresses.config.openshift.io/cluster has no spec.domain',
    );
  try {
    return apiHostname(instance.metadata!.name!, instance.metadata!.namespace!, domain);
  } catch (error) {
    if (error instanceof NamingError) throw new OwnershipConflictError(error.message);
    throw error;
  }
}

/**
 * The KAS serving certificate Secret (spec §3.7), created, or re-issued when it does not fit the
 * host name or is near expiry. Returns the certificate PEM (the CA of the published kubeconfig).
 */
export async function ensureKasServingCert(
  manager: Manager,
  instance: ClusterInstance,
  placement: HcpPlacement,
  hostname: string,
): Promise<string> {
  const now = manager.clock.now();
  const namespace = placement.hostedClusterNamespace;
  let existing = await liveSecret(manager, namespace, kasServingCertName(instance.metadata!.name!));
  if (!existing) {
    const desired = buildKasSecret(instance, placement, issueKasServingCert(hostname, now));
    try {
      await manager.client.create(SECRETS, desired);
      return decode(desired.data!['tls.crt']);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      existing = await manager.client.get<SecretObject>(
        SECRETS,
        desired.metadata!.name!,
        namespace,
      );
    }
  }
  verifyOwnership(existing, instance, 'Secret');
  const current = {
    certificatePem: decode(existing.data?.['tls.crt']),
    keyPem: decode(existing.data?.['tls.key']),
  };
  if (kasServingCertUsable(current, hostname, now)) return current.certificatePem;
  const renewed = buildKasSecret(instance, placement, issueKasServingCert(hostname, now));
  await manager.client.update(SECRETS, { ...existing, type: renewed.type, data: renewed.data });
  return decode(renewed.data!['tls.crt']);
}

/** From the cache, else live: a lagging cache must not make the certificate be issued twice. */
async function liveSecret(
  manager: Manager,
  namespace: string,
  name: string,
): Promise<SecretObject | undefined> {
  const cached = manager.informer<SecretObject>(SECRETS).get(`${namespace}/${name}`);
  if (cached) return cached;
  try {
    return await manager.client.get<SecretObject>(SECRETS, name, namespace);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
