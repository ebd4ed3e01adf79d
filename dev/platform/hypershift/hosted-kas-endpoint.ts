import type { ApiClient } from '../../../client/kube/api-client.js';
import { isAlreadyExists } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { resourceType } from '../../../client/kube/resource-type.js';
import type { HostedClusterObject } from './hosted-cluster-status.js';
import type { SimulatedHostedGuest } from './simulated-hosted-guest.js';

const SERVICES = resourceType('v1', 'Service', 'services');

/** Where a hosted cluster's kube-apiserver answers: status.controlPlaneEndpoint. */
export interface KasEndpoint {
  host: string;
  port: number;
}

interface ServiceObject extends KubeObject {
  spec?: { type?: string };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } };
}

/** The address a load balancer provider (MetalLB on bare metal) gives the Service here. */
const LOAD_BALANCER_ADDRESS = '127.0.0.1';

/**
 * The hosted control plane's kube-apiserver Service, of the type the APIServer's publishing
 * strategy asks for, and where it answers: a NodePort at the address spec.services names, a
 * LoadBalancer at its load balancer's address once it has one (the simulation plays the
 * provider and assigns it at once). Every port is the shared guest API's, which stands behind
 * them all. Undefined while the load balancer has no address.
 */
export async function kasEndpoint(
  client: ApiClient,
  hc: HostedClusterObject,
  namespace: string,
  guest: SimulatedHostedGuest,
): Promise<KasEndpoint | undefined> {
  const strategy = hc.spec?.services?.find(
    (s) => s.service === 'APIServer',
  )?.servicePublishingStrategy;
  const port = guest.address.port;
  const service = await ensureService(client, namespace, strategy?.type === 'LoadBalancer');
  switch (strategy?.type) {
    case 'NodePort':
      return { host: strategy.nodePort?.address ?? '127.0.0.1', port };
    case 'Route':
      return strategy.route?.hostname ? { host: strategy.route.hostname, port } : undefined;
    case 'LoadBalancer': {
      const host = await loadBalancerAddress(client, namespace, service);
      return host ? { host, port } : undefined;
    }
    default:
      return undefined;
  }
}

async function ensureService(
  client: ApiClient,
  namespace: string,
  loadBalancer: boolean,
): Promise<ServiceObject> {
  try {
    return await client.create<ServiceObject>(SERVICES, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-apiserver', namespace },
      spec: {
        type: loadBalancer ? 'LoadBalancer' : 'ClusterIP',
        ports: [{ name: 'client', port: 6443, targetPort: 6443 }],
      },
    } as KubeObject);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    return client.get<ServiceObject>(SERVICES, 'kube-apiserver', namespace);
  }
}

/** The load balancer's address, assigned first if it has none (as the provider would). */
async function loadBalancerAddress(
  client: ApiClient,
  namespace: string,
  service: ServiceObject,
): Promise<string | undefined> {
  let ingress = service.status?.loadBalancer?.ingress?.[0];
  if (!ingress) {
    const assigned = await client.patch<ServiceObject>(
      SERVICES,
      { name: 'kube-apiserver', namespace, subresource: 'status' },
      { status: { loadBalancer: { ingress: [{ ip: LOAD_BALANCER_ADDRESS }] } } },
    );
    ingress = assigned.status?.loadBalancer?.ingress?.[0];
  }
  return ingress?.ip ?? ingress?.hostname;
}
