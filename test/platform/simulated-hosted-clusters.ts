import type { KubeConfig } from '@kubernetes/client-node';
import { NAMESPACES, SECRETS } from '../../operator/api/resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS } from '../../operator/api/platform-resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../operator/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../operator/kube/resource-type.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { startSimulatedController } from './simulated-controller.js';
import type { SimulatedHostedGuest } from './simulated-hosted-guest.js';

export const HYPERSHIFT_FINALIZER = 'hypershift.openshift.io/finalizer';
const SERVICES = resourceType('v1', 'Service', 'services');
const b64decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString();

export interface HostedClusterObject extends KubeObject {
  spec?: {
    release?: { image?: string };
    services?: {
      service: string;
      servicePublishingStrategy?: { type?: string; nodePort?: { address?: string } };
    }[];
    configuration?: {
      apiServer?: {
        servingCerts?: {
          namedCertificates?: { names?: string[]; servingCertificate?: { name?: string } }[];
        };
      };
    };
  };
  status?: Record<string, unknown>;
}

export interface SimulatedHostedClustersOptions {
  kubeConfig: KubeConfig;
  guest: SimulatedHostedGuest;
  /** HostedClusters in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  /** Failure injection: a HostedCluster for which this is false never becomes Available. */
  becomesAvailable?: (hostedCluster: HostedClusterObject) => boolean;
}

/** The release version HyperShift reports for a release image (its tag's x.y.z). */
export function releaseVersion(image: string | undefined): string {
  return /:(\d+\.\d+\.\d+)/.exec(image ?? '')?.[1] ?? '';
}

/**
 * HyperShift's HostedCluster controller, simulated: it makes the hosted control plane namespace
 * with the kube-apiserver Service, has the guest serve the named certificates, writes the admin
 * kubeconfig Secret, and reports the version and Available. On deletion it removes the NodePools,
 * the admin kubeconfig and the control plane namespace before letting the HostedCluster go.
 */
export class SimulatedHostedClusters {
  private constructor(private readonly manager: Manager) {}

  static async start(options: SimulatedHostedClustersOptions): Promise<SimulatedHostedClusters> {
    const manager = await startSimulatedController(options.kubeConfig, (m) => ({
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
        await new HostedClusterPass(m, options, hc).run();
        return {};
      },
    }));
    return new SimulatedHostedClusters(manager);
  }

  async stop(): Promise<void> {
    await this.manager.stop();
  }
}

/** Available, Progressing and Degraded, with lastTransitionTime kept while a status holds. */
function hostedClusterConditions(
  hc: HostedClusterObject,
  available: boolean,
  servingReady: boolean,
): Record<string, unknown>[] {
  const previous = (hc.status?.conditions ?? []) as {
    type: string;
    status: string;
    lastTransitionTime: string;
  }[];
  const condition = (
    type: string,
    status: 'True' | 'False',
    reason: string,
    message: string,
  ): Record<string, unknown> => {
    const old = previous.find((c) => c.type === type);
    const lastTransitionTime =
      old?.status === status
        ? old.lastTransitionTime
        : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      type,
      status,
      reason,
      message,
      observedGeneration: hc.metadata?.generation,
      lastTransitionTime,
    };
  };
  const waiting = servingReady
    ? ['WaitingForAvailable', 'Waiting for hosted control plane to be healthy']
    : ['MissingServingCertificate', 'A named serving certificate Secret is missing'];
  return [
    available
      ? condition('Available', 'True', 'AsExpected', 'The hosted control plane is available')
      : condition('Available', 'False', waiting[0]!, waiting[1]!),
    available
      ? condition('Progressing', 'False', 'AsExpected', 'HostedCluster is at expected version')
      : condition('Progressing', 'True', 'AsExpected', 'HostedCluster is deploying'),
    condition('Degraded', 'False', 'AsExpected', 'The hosted cluster is not degraded'),
  ];
}

/** The hosted control plane namespace HyperShift uses for a HostedCluster. */
export function controlPlaneNamespaceOf(hc: KubeObject): string {
  return `${hc.metadata!.namespace}-${hc.metadata!.name!.replaceAll('.', '-')}`;
}

class HostedClusterPass {
  constructor(
    private readonly manager: Manager,
    private readonly options: SimulatedHostedClustersOptions,
    private readonly hc: HostedClusterObject,
  ) {}

  private get client(): Manager['client'] {
    return this.manager.client;
  }

  async run(): Promise<void> {
    if (this.hc.metadata?.deletionTimestamp) return this.delete();
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
    const namespace = controlPlaneNamespaceOf(this.hc);
    await this.createIfMissing(NAMESPACES, { metadata: { name: namespace } });
    await this.createIfMissing(SERVICES, {
      metadata: { name: 'kube-apiserver', namespace },
      spec: { ports: [{ name: 'client', port: 6443, targetPort: 6443 }] },
    } as KubeObject);
    const servingReady = await this.serveNamedCertificates();
    const kubeconfigSecret = await this.ensureAdminKubeconfig();
    const available = servingReady && (this.options.becomesAvailable?.(this.hc) ?? true);
    await this.writeStatus(kubeconfigSecret, available, servingReady);
  }

  private nodePortAddress(): string {
    const api = this.hc.spec?.services?.find((s) => s.service === 'APIServer');
    return api?.servicePublishingStrategy?.nodePort?.address ?? '127.0.0.1';
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

  private async ensureAdminKubeconfig(): Promise<string> {
    const name = `${this.hc.metadata!.name}-admin-kubeconfig`;
    const server = `https://${this.nodePortAddress()}:${this.options.guest.address.port}`;
    const kubeconfig = this.options.guest.adminKubeconfig(this.hc.metadata!.name!, server);
    await this.createIfMissing(SECRETS, {
      metadata: {
        name,
        namespace: this.hc.metadata!.namespace,
        ownerReferences: [
          {
            apiVersion: HOSTED_CLUSTERS.apiVersion,
            kind: HOSTED_CLUSTERS.kind,
            name: this.hc.metadata!.name!,
            uid: this.hc.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    } as KubeObject);
    return name;
  }

  private async writeStatus(
    kubeconfigSecret: string,
    available: boolean,
    servingReady: boolean,
  ): Promise<void> {
    const image = this.hc.spec?.release?.image ?? '';
    const version = releaseVersion(image);
    const previous = this.hc.status ?? {};
    const status = {
      ...previous,
      version: {
        desired: { image, version },
        history: [{ state: available ? 'Completed' : 'Partial', image, version }],
        observedGeneration: this.hc.metadata?.generation,
      },
      kubeconfig: { name: kubeconfigSecret },
      controlPlaneEndpoint: { host: this.nodePortAddress(), port: this.options.guest.address.port },
      conditions: hostedClusterConditions(this.hc, available, servingReady),
    };
    if (JSON.stringify(previous) === JSON.stringify(status)) return;
    try {
      await this.client.updateStatus(HOSTED_CLUSTERS, { ...this.hc, status });
    } catch (error) {
      if (!isConflict(error) && !isNotFound(error)) throw error;
      // A newer version is in the queue already.
    }
  }

  /** HyperShift's teardown: NodePools first, then the control plane; the finalizer goes last. */
  private async delete(): Promise<void> {
    const finalizers = this.hc.metadata?.finalizers ?? [];
    if (!finalizers.includes(HYPERSHIFT_FINALIZER)) return;
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
    const nodePools = this.manager
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
    type: Parameters<Manager['client']['get']>[0],
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

  private async createIfMissing(
    type: Parameters<Manager['client']['create']>[0],
    object: KubeObject,
  ): Promise<void> {
    try {
      await this.client.create(type, { apiVersion: type.apiVersion, kind: type.kind, ...object });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
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
