import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { NAMESPACES, SECRETS } from '../../../client/api/resources.js';
import {
  HOSTED_CLUSTERS,
  INGRESS_CONFIGS,
  NODE_POOLS,
} from '../../../operator/api/platform-resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import { startSimulatedController } from '../host/simulator-host.js';
import type { KasEndpoint } from './hosted-kas-endpoint.js';
import { kasEndpoint } from './hosted-kas-endpoint.js';
import { writeStatus } from '../host/platform-status.js';
import type { HostedClusterObject } from './hosted-cluster-status.js';
import type { HostedClusterDelays } from './hosted-cluster-delays.js';
import { HostedClusterDelayClock } from './hosted-cluster-delays.js';
import type { PassResult } from '../host/simulated-controller.js';
import { hostedClusterConditions, hostedClusterVersion } from './hosted-cluster-status.js';
import type { SimulatedHostedGuest } from './simulated-hosted-guest.js';

export type { HostedClusterObject } from './hosted-cluster-status.js';
export { releaseVersion } from '../update-service/release-catalog.js';

export const HYPERSHIFT_FINALIZER = 'hypershift.openshift.io/finalizer';
type SecretObject = KubeObject & { data?: Record<string, string> };
const b64decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString();

export interface SimulatedHostedClustersOptions {
  kubeConfig: ClusterAccess;
  guest: SimulatedHostedGuest;
  /** HostedClusters in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  /** Failure injection: a HostedCluster for which this is false never becomes Available. */
  becomesAvailable?: (hostedCluster: HostedClusterObject) => boolean;
  /** How long becoming Available and teardown take (none: as fast as the API allows). */
  delays?: HostedClusterDelays;
}

/**
 * HyperShift's HostedCluster controller, simulated: it fills in the base domain of a KubeVirt
 * cluster with baseDomainPassthrough, makes the hosted control plane namespace with the
 * kube-apiserver Service published as spec.services says, has the guest serve the named
 * certificates, keeps the admin kubeconfig Secret, and reports the version and Available. On
 * deletion it removes the NodePools, the admin kubeconfig and the control plane namespace before
 * letting the HostedCluster go.
 */
export class SimulatedHostedClusters {
  private constructor(private readonly host: SimulatorHost) {}

  static async start(options: SimulatedHostedClustersOptions): Promise<SimulatedHostedClusters> {
    const clock = new HostedClusterDelayClock(options.delays);
    const host = await startSimulatedController(options.kubeConfig, (m) => ({
      name: 'simulated-hypershift-hostedclusters',
      forType: HOSTED_CLUSTERS,
      watches: [
        {
          // A deleting HostedCluster waits for its control plane namespace to go.
          type: NAMESPACES,
          map: (namespace) =>
            m
              .informer<HostedClusterObject>(HOSTED_CLUSTERS)
              .list((hc) => controlPlaneNamespaceOf(hc) === namespace.metadata!.name)
              .map((hc) => `${hc.metadata!.namespace}/${hc.metadata!.name}`),
        },
        {
          // A deleting HostedCluster waits for its NodePools to go.
          type: NODE_POOLS,
          map: (np) => [
            `${np.metadata!.namespace}/${String((np as { spec?: { clusterName?: string } }).spec?.clusterName)}`,
          ],
        },
      ],
      reconcile: async (key) => {
        const hc = m.informer<HostedClusterObject>(HOSTED_CLUSTERS).get(key);
        if (!hc || !options.servesNamespace(hc.metadata!.namespace!)) return {};
        return new HostedClusterPass(m, options, hc, clock).run();
      },
    }));
    return new SimulatedHostedClusters(host);
  }

  async stop(): Promise<void> {
    await this.host.stop();
  }
}

/** The hosted control plane namespace HyperShift uses for a HostedCluster. */
export function controlPlaneNamespaceOf(hc: KubeObject): string {
  return `${hc.metadata!.namespace}-${hc.metadata!.name!.replaceAll('.', '-')}`;
}

/** Why a HostedCluster is not Available yet: the first thing missing. */
function waitingFor(servingReady: boolean, published: boolean): [string, string] {
  if (!servingReady)
    return ['MissingServingCertificate', 'A named serving certificate Secret is missing'];
  if (!published) return ['WaitingForLoadBalancer', 'Waiting for the kube-apiserver load balancer'];
  return ['WaitingForAvailable', 'Waiting for hosted control plane to be healthy'];
}

class HostedClusterPass {
  constructor(
    private readonly host: SimulatorHost,
    private readonly options: SimulatedHostedClustersOptions,
    private readonly hc: HostedClusterObject,
    private readonly clock: HostedClusterDelayClock,
  ) {}

  private get client(): SimulatorHost['client'] {
    return this.host.client;
  }

  async run(): Promise<PassResult> {
    if (this.hc.metadata?.deletionTimestamp) return this.delete();
    const delayMs = this.clock.untilAvailable(this.hc);
    if (!this.hc.metadata?.finalizers?.includes(HYPERSHIFT_FINALIZER)) {
      await this.update({
        ...this.hc,
        metadata: {
          ...this.hc.metadata,
          finalizers: [...(this.hc.metadata?.finalizers ?? []), HYPERSHIFT_FINALIZER],
        },
      });
      return;
    }
    if (await this.passBaseDomainThrough()) return;
    const namespace = controlPlaneNamespaceOf(this.hc);
    await this.createIfMissing(NAMESPACES, { metadata: { name: namespace } });
    const endpoint = await kasEndpoint(this.client, this.hc, namespace, this.options.guest);
    const servingReady = await this.serveNamedCertificates();
    const kubeconfigSecret = endpoint ? await this.ensureAdminKubeconfig(endpoint) : undefined;
    const available = servingReady && !!endpoint && this.mayBeAvailable(delayMs);
    await this.writeStatus({
      kubeconfigSecret,
      endpoint,
      available,
      waiting: waitingFor(servingReady, !!endpoint),
    });
    return delayMs > 0 ? { requeueAfterMs: delayMs } : undefined;
  }

  /** Past its delay (hosted-cluster-delays.ts), unless failure injection says never. */
  private mayBeAvailable(delayMs: number): boolean {
    return delayMs === 0 && (this.options.becomesAvailable?.(this.hc) ?? true);
  }

  /**
   * KubeVirt's baseDomainPassthrough (reconcileKubevirtPlatformDefaultSettings): without a base
   * domain of its own, the guest's is the management cluster's apps domain (HyperShift reads it
   * from a temporary Route's host), written into spec.dns. True when it was written.
   */
  private async passBaseDomainThrough(): Promise<boolean> {
    const spec = this.hc.spec;
    if (spec?.platform?.kubevirt?.baseDomainPassthrough !== true || spec.dns?.baseDomain)
      return false;
    const ingress = await this.get<KubeObject & { spec?: { domain?: string } }>(
      INGRESS_CONFIGS,
      'cluster',
    );
    if (!ingress?.spec?.domain) return false;
    await this.update({ ...this.hc, spec: { ...spec, dns: { baseDomain: ingress.spec.domain } } });
    return true;
  }

  /** The guest serves each named certificate; false while a referenced Secret is missing. */
  private async serveNamedCertificates(): Promise<boolean> {
    const named = this.hc.spec?.configuration?.apiServer?.servingCerts?.namedCertificates ?? [];
    for (const entry of named) {
      const secret = await this.get<KubeObject & { data?: Record<string, string> }>(
        SECRETS,
        entry.servingCertificate?.name ?? '',
        this.hc.metadata!.namespace,
      );
      if (!secret) return false;
      for (const host of entry.names ?? [])
        await this.options.guest.serveNamedCertificate(
          host,
          b64decode(secret.data?.['tls.crt']),
          b64decode(secret.data?.['tls.key']),
        );
    }
    return true;
  }

  /**
   * `<hc>-admin-kubeconfig`, as the HostedCluster controller keeps it (createOrUpdate): the
   * HostedCluster's labels, type Opaque, a plain owner reference, the kubeconfig under
   * `kubeconfig`.
   */
  private async ensureAdminKubeconfig(endpoint: KasEndpoint): Promise<string> {
    const name = `${this.hc.metadata!.name}-admin-kubeconfig`;
    const namespace = this.hc.metadata!.namespace!;
    const labels = this.hc.metadata?.labels ?? {};
    const existing = await this.get<SecretObject>(SECRETS, name, namespace);
    if (existing) {
      if (JSON.stringify(existing.metadata?.labels ?? {}) !== JSON.stringify(labels))
        await this.ignoreConflict(
          this.client.update(SECRETS, {
            ...existing,
            metadata: { ...existing.metadata, labels },
          }),
        );
      return name;
    }
    const server = `https://${endpoint.host}:${endpoint.port}`;
    const kubeconfig = this.options.guest.adminKubeconfig(this.hc.metadata!.name!, server);
    await this.createIfMissing(SECRETS, {
      metadata: {
        name,
        namespace,
        labels,
        ownerReferences: [
          {
            apiVersion: HOSTED_CLUSTERS.apiVersion,
            kind: HOSTED_CLUSTERS.kind,
            name: this.hc.metadata!.name!,
            uid: this.hc.metadata!.uid!,
          },
        ],
      },
      type: 'Opaque',
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    } as KubeObject);
    return name;
  }

  private async writeStatus(facts: {
    kubeconfigSecret: string | undefined;
    endpoint: KasEndpoint | undefined;
    available: boolean;
    waiting: [string, string];
  }): Promise<void> {
    const status = {
      ...this.hc.status,
      version: hostedClusterVersion(this.hc, facts.available),
      ...(facts.kubeconfigSecret ? { kubeconfig: { name: facts.kubeconfigSecret } } : {}),
      ...(facts.endpoint ? { controlPlaneEndpoint: facts.endpoint } : {}),
      conditions: hostedClusterConditions(this.hc, facts.available, facts.waiting),
    };
    // A conflict: a newer version is in the queue already.
    await this.ignoreConflict(writeStatus(this.client, HOSTED_CLUSTERS, this.hc, status));
  }

  /** HyperShift's teardown: NodePools first, then the control plane; the finalizer goes last. */
  private async delete(): Promise<PassResult> {
    const finalizers = this.hc.metadata?.finalizers ?? [];
    if (!finalizers.includes(HYPERSHIFT_FINALIZER)) return;
    // Counted from the first pass that sees the deletion, while the parts below go.
    const delayMs = this.clock.untilDeleted(this.hc);
    if (!(await this.nodePoolsGone())) return;
    const named = this.hc.spec?.configuration?.apiServer?.servingCerts?.namedCertificates ?? [];
    for (const host of named.flatMap((entry) => entry.names ?? []))
      await this.options.guest.forgetNamedCertificate(host);
    const namespace = this.hc.metadata!.namespace!;
    await this.ignoreNotFound(
      this.client.delete(SECRETS, `${this.hc.metadata!.name}-admin-kubeconfig`, namespace),
    );
    // The control plane namespace is gone before the HostedCluster is: a new HostedCluster of the
    // same name may come right after.
    const controlPlane = controlPlaneNamespaceOf(this.hc);
    if (await this.get(NAMESPACES, controlPlane)) {
      await this.ignoreNotFound(this.client.delete(NAMESPACES, controlPlane));
      return;
    }
    if (delayMs > 0) return { requeueAfterMs: delayMs };
    this.clock.forget(this.hc);
    await this.update({
      ...this.hc,
      metadata: {
        ...this.hc.metadata,
        finalizers: finalizers.filter((f) => f !== HYPERSHIFT_FINALIZER),
      },
    });
  }

  /** Deletes the HostedCluster's NodePools; true once none is left. */
  private async nodePoolsGone(): Promise<boolean> {
    const namespace = this.hc.metadata!.namespace!;
    const nodePools = this.host
      .informer<KubeObject & { spec?: { clusterName?: string } }>(NODE_POOLS)
      .list(
        (np) =>
          np.metadata!.namespace === namespace && np.spec?.clusterName === this.hc.metadata!.name,
      );
    for (const np of nodePools)
      if (!np.metadata?.deletionTimestamp)
        await this.ignoreNotFound(this.client.delete(NODE_POOLS, np.metadata!.name!, namespace));
    return nodePools.length === 0;
  }

  private async update(object: HostedClusterObject): Promise<void> {
    try {
      await this.client.update(HOSTED_CLUSTERS, object);
    } catch (error) {
      if (!isConflict(error) && !isNotFound(error)) throw error;
    }
  }

  private async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    try {
      return await this.client.get<T>(type, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async createIfMissing(type: ResourceType, object: KubeObject): Promise<void> {
    try {
      await this.client.create(type, { apiVersion: type.apiVersion, kind: type.kind, ...object });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  private async ignoreConflict(request: Promise<unknown>): Promise<void> {
    try {
      await request;
    } catch (error) {
      if (!isConflict(error) && !isNotFound(error)) throw error;
    }
  }

  private async ignoreNotFound(request: Promise<unknown>): Promise<void> {
    try {
      await request;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
