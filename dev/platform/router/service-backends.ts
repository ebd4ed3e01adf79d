import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { PODS } from '../../../client/api/core-resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import type { Pod } from '../../../operator/kube/workloads.js';
import type { Informer } from '../../../operator/runtime/informer.js';
import type { PodStatusIp, ServiceObject } from '../host/platform-kinds.js';
import { SERVICES } from '../host/platform-kinds.js';
import { startPlatformInformer } from '../host/platform-informer.js';
import type { Backend, RouteObject } from './simulated-router.js';

type PodWithIp = Pod & PodStatusIp;

/** The Service port a Route names (by name or number; the first one when it names none). */
function servicePort(
  service: ServiceObject | undefined,
  wanted: number | string | undefined,
): NonNullable<NonNullable<ServiceObject['spec']>['ports']>[number] | undefined {
  return service?.spec?.ports?.find(
    (p) => wanted === undefined || p.name === wanted || p.port === wanted,
  );
}

/** A pod the Service sends traffic to: selected, Running with an IP, not being deleted. */
function serves(pod: PodWithIp, selector: Record<string, string>): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    !!pod.status.podIP &&
    Object.entries(selector).every(([key, value]) => pod.metadata?.labels?.[key] === value)
  );
}

/**
 * What kube-proxy and the endpoints controller do for the router, simulated: a Route's Service
 * (spec.to) and port (spec.port.targetPort, a port name or number) resolve to a Running, ready pod
 * that the Service selects, at the pod's IP and the port's targetPort. On loopback, a pod IP is an
 * address of 127.0.0.0/8 where the pod's program (a simulated guest) listens.
 */
export class ServiceBackends {
  private constructor(
    private readonly caches: {
      services: Informer<ServiceObject>;
      pods: Informer<PodWithIp>;
      clients: ApiClient[];
    }[],
  ) {}

  static async start(kubeConfig: ClusterAccess, namespaces: string[]): Promise<ServiceBackends> {
    const caches = [];
    for (const namespace of namespaces) {
      const services = await startPlatformInformer<ServiceObject>(
        kubeConfig,
        SERVICES,
        namespace,
        {},
      );
      const pods = await startPlatformInformer<PodWithIp>(kubeConfig, PODS, namespace, {});
      caches.push({
        services: services.informer,
        pods: pods.informer,
        clients: [services.client, pods.client],
      });
    }
    return new ServiceBackends(caches);
  }

  /** Where the Route's traffic goes, or undefined while nothing serves it. */
  resolve(route: RouteObject): Backend | undefined {
    const namespace = route.metadata!.namespace!;
    const key = `${namespace}/${route.spec?.to?.name}`;
    const cache = this.caches.find((c) => c.services.get(key));
    const service = cache?.services.get(key);
    const port = servicePort(service, route.spec?.port?.targetPort);
    const selector = service?.spec?.selector ?? {};
    if (!cache || !port || Object.keys(selector).length === 0) return undefined;
    const target = typeof port.targetPort === 'number' ? port.targetPort : port.port;
    const pod = cache.pods.list(
      (p) => p.metadata?.namespace === namespace && serves(p, selector),
    )[0];
    return pod ? { host: pod.status!.podIP!, port: target } : undefined;
  }

  async stop(): Promise<void> {
    for (const cache of this.caches) {
      await cache.services.stop();
      await cache.pods.stop();
      for (const client of cache.clients) await client.close();
    }
  }
}
