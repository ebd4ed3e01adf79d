import type { KubeConfig } from '@kubernetes/client-node';
import type { ClusterInstance } from '../../operator/api/resources.js';
import type { ApiClient } from '../../operator/kube/api-client.js';
import type { SimulatedHostedGuest } from '../../dev/platform/simulated-hosted-guest.js';
import { SimulatedPlatform } from '../../dev/platform/simulated-platform.js';
import { OperatorEnvironment } from '../support/operator-environment.js';

/**
 * The hcp world of one test file (see SimulatedPlatform): the simulated HyperShift
 * (HostedClusters, NodePools), the router, a management node and one guest API behind them,
 * for the test's namespace and its control plane namespaces (`<namespace>-…`), plus the real
 * operator.
 */
export class HcpEnvironment extends OperatorEnvironment {
  static async start(
    kubeConfig: KubeConfig,
    api: ApiClient,
    namespace: string,
  ): Promise<HcpEnvironment> {
    const environment = new HcpEnvironment(kubeConfig, { namespaces: [namespace], hcp: true });
    await SimulatedPlatform.startParts(environment, api);
    return environment;
  }

  /** The guest API every hosted cluster answers with. */
  get guest(): SimulatedHostedGuest {
    return this.hostedGuest;
  }
}

export { createPullSecret } from '../support/pull-secret.js';

export const readyCondition = (
  instance: ClusterInstance | undefined,
): { status: string; reason: string; message: string } | undefined =>
  instance?.status?.conditions?.find((c) => c.type === 'Ready');
