import { randomBytes } from 'node:crypto';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { NODES } from '../../../operator/api/platform-resources.js';
import { kubeletReadyCondition } from '../../guest/kubelet-ready.js';

/**
 * A Ready, schedulable management-cluster Node with an InternalIP on loopback, as a kubelet
 * registers it (HostedClusters publish their API server on a node address). Nodes are
 * cluster-wide: each user registers its own and removes it when done.
 */
export class SimulatedManagementNode {
  private constructor(
    private readonly client: ApiClient,
    readonly name: string,
  ) {}

  static async start(client: ApiClient, address = '127.0.0.1'): Promise<SimulatedManagementNode> {
    const name = `sim-node-${randomBytes(3).toString('hex')}`;
    const created = await client.create<KubeObject>(NODES, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } },
    });
    await client.updateStatus(NODES, {
      ...created,
      status: {
        conditions: [kubeletReadyCondition()],
        addresses: [
          { type: 'InternalIP', address },
          { type: 'Hostname', address: name },
        ],
      },
    } as KubeObject);
    return new SimulatedManagementNode(client, name);
  }

  async stop(): Promise<void> {
    try {
      await this.client.delete(NODES, this.name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
