import { NODE_POOLS } from '../../../api/platform-resources.js';
import type { ReconcileResult } from '../../../runtime/controller.js';
import { recordHibernation } from '../core/hibernation.js';
import type { PlatformObject } from '../core/platform-object.js';
import { verifyOwnership } from './hcp-ownership.js';
import type { HcpPass } from './hcp-pass.js';
import { recordedPlacement } from './hcp-placement.js';

/**
 * Hibernates an hcp guest (docs/reference/instances.md#hibernation, ADR 0048): its NodePool is
 * scaled to zero, so HyperShift scales the MachineDeployment to zero
 * (hypershift-operator/controllers/nodepool/capi.go, setMachineDeploymentReplicas) and the KubeVirt
 * worker VMs go; the NodePool's status.replicas follows the MachineDeployment's available
 * replicas. The hosted control plane keeps running: HyperShift has no stopped control plane, and
 * spec.pausedUntil only pauses its reconciliation, which saves nothing. A resume sets the
 * replicas back (hcp-backing-steps.ts, nodePoolStep) and waits for the workers to join again.
 */
export async function hibernateHcp(pass: HcpPass): Promise<ReconcileResult> {
  const { api, objects, draft } = pass;
  const placement = recordedPlacement(objects.instance);
  const where = placement && `${placement.hostedClusterNamespace}/${placement.nodePoolName}`;
  const nodePool =
    placement &&
    api.cached<PlatformObject>(
      NODE_POOLS,
      `${placement.hostedClusterNamespace}/${placement.nodePoolName}`,
    );
  if (nodePool) {
    verifyOwnership(nodePool, objects.instance, 'NodePool');
    if (nodePool.spec?.replicas !== 0) {
      await api.update(NODE_POOLS, { ...nodePool, spec: { ...nodePool.spec, replicas: 0 } });
      api.event(
        objects.instance,
        'Normal',
        'NodePoolScaledToZero',
        `Scaled NodePool ${where} to 0 replicas to hibernate the spare; its control plane keeps running`,
      );
    }
  }
  const workers = Number(nodePool?.status?.replicas ?? 0);
  const stopped = !nodePool || (nodePool.spec?.replicas === 0 && workers === 0);
  recordHibernation(draft, api.now(), {
    stopped,
    message: stopped
      ? `NodePool ${where ?? '(none)'} has no workers; the hosted control plane keeps running, and a lease resumes it`
      : `waiting for NodePool ${where} to scale to 0 (${workers} replica(s) left)`,
  });
  return {};
}
