import type { ClusterAccess } from '../../operator/kube/api-client.js';
import type { Logger } from '../../operator/runtime/logger.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { ClusterInstance } from '../../operator/api/resources.js';
import { SECRETS } from '../../operator/api/resources.js';
import { guestApiProbe } from '../../operator/controllers/clusterinstance/guest-api-probe.js';
import { registerControllers } from '../../operator/controllers/register-controllers.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import { Manager } from '../../operator/runtime/manager.js';
import { testConfig } from '../operator/test-manager.js';
import type { HostedClusterObject } from '../platform/simulated-hosted-clusters.js';
import { SimulatedHostedClusters } from '../platform/simulated-hosted-clusters.js';
import { SimulatedHostedGuest } from '../platform/simulated-hosted-guest.js';
import { SimulatedManagementNode } from '../platform/simulated-management-node.js';
import { SimulatedNodePools } from '../platform/simulated-node-pools.js';
import { ensurePlatformOperands } from '../platform/simulated-platform-operands.js';
import { SimulatedRouter } from '../platform/simulated-router.js';

/**
 * The hcp world of one test file: the simulated HyperShift (HostedClusters, NodePools), the
 * router, a management node and one guest API behind them, plus the real operator with all its
 * controllers. The platform and the instance controller keep to namespaces of this test
 * (`<namespace>` and `<namespace>-…`): other test files share the control plane.
 */
export class HcpEnvironment {
  private operator: Manager | undefined;
  /** Failure injection: HostedClusters of instances with these names never become Available. */
  readonly neverAvailable = new Set<string>();
  /** Failure injection: NodePools of instances with these names get no workers. */
  readonly noWorkers = new Set<string>();

  private constructor(
    private readonly kubeConfig: KubeConfig,
    readonly namespaces: string[],
    readonly guest: SimulatedHostedGuest,
    readonly router: SimulatedRouter,
    private readonly parts: { stop(): Promise<void> }[],
  ) {}

  static async start(
    kubeConfig: KubeConfig,
    api: ApiClient,
    namespace: string,
  ): Promise<HcpEnvironment> {
    const serves = (ns: string): boolean => ns === namespace || ns.startsWith(`${namespace}-`);
    const guest = await SimulatedHostedGuest.start();
    const parts: { stop(): Promise<void> }[] = [guest];
    try {
      const router = await SimulatedRouter.start({
        kubeConfig,
        servesNamespace: serves,
        backend: (route) => (route.spec?.to?.name === 'kube-apiserver' ? guest.address : undefined),
      });
      parts.unshift(router);
      parts.unshift(await SimulatedManagementNode.start(api));
      await ensurePlatformOperands(api);
      const holder: { environment?: HcpEnvironment } = {};
      parts.unshift(
        await SimulatedHostedClusters.start({
          kubeConfig,
          guest,
          servesNamespace: serves,
          becomesAvailable: (hc: HostedClusterObject) =>
            !holder.environment?.neverAvailable.has(
              hc.metadata?.labels?.['opdev.io/cluster-instance'] ?? '',
            ),
        }),
      );
      parts.unshift(
        await SimulatedNodePools.start({
          kubeConfig,
          servesNamespace: serves,
          readyReplicas: (np) =>
            holder.environment?.noWorkers.has(
              np.metadata?.labels?.['opdev.io/cluster-instance'] ?? '',
            )
              ? 0
              : (np.spec?.replicas ?? 0),
        }),
      );
      holder.environment = new HcpEnvironment(kubeConfig, [namespace], guest, router, parts);
      return holder.environment;
    } catch (error) {
      await Promise.all(parts.map((p) => p.stop()));
      throw error;
    }
  }

  /**
   * Starts the operator; its pool, lease and instance controllers act in `namespaces` only. `access` lets it talk
   * to the apiserver as another identity (its own ServiceAccount), `logger` collects its log.
   */
  async startOperator(options: { access?: ClusterAccess; logger?: Logger } = {}): Promise<Manager> {
    const manager = new Manager({
      config: testConfig({ workersPerController: 2 }),
      kubeConfig: options.access ?? this.kubeConfig,
      logger:
        options.logger ??
        pino({ level: process.env.OPERATOR_TEST_LOG_LEVEL ?? 'silent' }, process.stderr),
      watchBackoff: { baseMs: 50, maxMs: 1000, jitter: 0.2 },
      retryBackoff: { baseMs: 100, maxMs: 5000, jitter: 0.1 },
    });
    registerControllers(manager, {
      // CRCBundles are cluster-scoped: another test file's bundles are not this operator's.
      controllers: ['clusterpool', 'clusterlease', 'clusterinstance'],
      namespaces: this.namespaces,
      // Route hosts resolve to the router, as DNS would send them on a real cluster.
      hcp: { probe: guestApiProbe(() => this.router.address) },
    });
    await manager.start();
    this.operator = manager;
    return manager;
  }

  async stop(): Promise<void> {
    await this.operator?.stop();
    for (const part of this.parts) await part.stop();
  }
}

/** The pull secret an hcp instance needs in its namespace (default name `pull-secret`). */
export async function createPullSecret(
  api: ApiClient,
  namespace: string,
  name = 'pull-secret',
): Promise<void> {
  await api.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'kubernetes.io/dockerconfigjson',
    data: {
      '.dockerconfigjson': Buffer.from('{"auths":{"quay.io":{"auth":"eDp5"}}}').toString('base64'),
    },
  } as never);
}

export const readyCondition = (
  instance: ClusterInstance | undefined,
): { status: string; reason: string; message: string } | undefined =>
  instance?.status?.conditions?.find((c) => c.type === 'Ready');
