import { SECRETS } from '../../../../client/api/resources.js';
import { HOSTED_CLUSTERS, ROUTES } from '../../../api/platform-resources.js';
import type { Stored } from '../../../kube/objects.js';
import { decodeBase64 as decode } from '../core/encoding.js';
import { checkHostAvailable, endpointHostname, newApiHostname } from '../core/endpoint.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { isDns1123Subdomain } from '../core/naming.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import type { PlatformObject } from '../core/platform-object.js';
import type { SecretObject } from './hcp-builders.js';
import { buildKasSecret } from './hcp-builders.js';
import { apiRouteName, kasServingCertName } from './hcp-naming.js';
import { verifyOwnership } from './hcp-ownership.js';
import type { HcpPlacement } from './hcp-placement.js';
import {
  certificateHostname,
  issueKasServingCert,
  kasServingCertUsable,
} from './kas-serving-cert.js';

interface NamedCertificate {
  names?: string[];
  servingCertificate?: { name?: string };
}

/**
 * The instance's API host name (docs/reference/instances.md#hcp-provisioning): what its
 * HostedCluster, KAS certificate and Route prove, which must agree with each other and with
 * status.apiEndpoint; else a new `api-<prefix>-<hash>.<domain>`. No other Route may serve the same
 * host.
 */
export async function resolveApiHostname(
  api: InstanceApi,
  objects: InstanceObjects,
  placement: HcpPlacement,
): Promise<string> {
  const instance = objects.instance;
  const route = api.cached<PlatformObject>(
    ROUTES,
    `${placement.controlPlaneNamespace}/${apiRouteName(instance.metadata.name)}`,
  );
  const evidence = await hostnameEvidence(api, objects, placement, route);
  const hosts = new Set(evidence.values());
  if (hosts.size > 1)
    throw new OwnershipConflictError(
      `conflicting API hostnames in existing resources: ${[...evidence].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    );
  const hostname = [...hosts][0] ?? (await newApiHostname(api, instance));
  if (!isDns1123Subdomain(hostname))
    throw new OwnershipConflictError(`API hostname "${hostname}" is not a DNS-1123 subdomain`);
  checkHostAvailable(api, hostname, route);
  return hostname;
}

/** The host names the instance's existing objects and status prove, by where they were found. */
async function hostnameEvidence(
  api: InstanceApi,
  objects: InstanceObjects,
  placement: HcpPlacement,
  route: PlatformObject | undefined,
): Promise<Map<string, string>> {
  const instance = objects.instance;
  const name = instance.metadata.name;
  const evidence = new Map<string, string>();
  const hostedCluster = api.cached<PlatformObject>(
    HOSTED_CLUSTERS,
    `${placement.hostedClusterNamespace}/${placement.hostedClusterName}`,
  );
  if (hostedCluster) evidence.set('HostedCluster', namedHost(hostedCluster, name));
  const cert = await objects.current<SecretObject>(
    SECRETS,
    kasServingCertName(name),
    placement.hostedClusterNamespace,
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
function namedHost(hostedCluster: Stored<PlatformObject>, instance: string): string {
  const configuration = hostedCluster.spec?.configuration as
    { apiServer?: { servingCerts?: { namedCertificates?: NamedCertificate[] } } } | undefined;
  const names = (configuration?.apiServer?.servingCerts?.namedCertificates ?? [])
    .filter((c) => c.servingCertificate?.name === kasServingCertName(instance))
    .flatMap((c) => c.names ?? []);
  if (names.length !== 1 || !names[0])
    throw new OwnershipConflictError(
      `HostedCluster ${hostedCluster.metadata.name} does not name exactly one API host for ${kasServingCertName(instance)}`,
    );
  return names[0];
}

/**
 * The KAS serving certificate Secret (docs/reference/generated-objects.md#kas-serving-certificate),
 * created, or re-issued when it does not fit the host name or is near expiry. Returns the
 * certificate PEM (the CA of the published kubeconfig).
 */
export async function ensureKasServingCert(
  api: InstanceApi,
  objects: InstanceObjects,
  placement: HcpPlacement,
  hostname: string,
): Promise<string> {
  const instance = objects.instance;
  const now = api.now();
  const namespace = placement.hostedClusterNamespace;
  const name = kasServingCertName(instance.metadata.name);
  // From the cache, else live: a lagging cache must not make the certificate be issued twice.
  let existing = await objects.current<SecretObject>(SECRETS, name, namespace);
  if (!existing) {
    const desired = buildKasSecret(instance, placement, issueKasServingCert(hostname, now));
    if (await api.createIfMissing(SECRETS, desired)) return decode(desired.data!['tls.crt']);
    existing = await api.get<SecretObject>(SECRETS, name, namespace);
    if (!existing) throw new Error(`KAS serving certificate Secret ${namespace}/${name} vanished`);
  }
  verifyOwnership(existing, instance, 'Secret');
  const current = {
    certificatePem: decode(existing.data?.['tls.crt']),
    keyPem: decode(existing.data?.['tls.key']),
  };
  if (kasServingCertUsable(current, hostname, now)) return current.certificatePem;
  const renewed = buildKasSecret(instance, placement, issueKasServingCert(hostname, now));
  await api.update(SECRETS, { ...existing, type: renewed.type, data: renewed.data });
  return decode(renewed.data!['tls.crt']);
}
