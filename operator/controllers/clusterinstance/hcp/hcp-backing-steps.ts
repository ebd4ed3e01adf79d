import { HOSTED_CLUSTERS, NODE_POOLS } from '../../../api/platform-resources.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import { holds, waiting } from '../../../reconcile/verdict.js';
import type { PlatformObject } from '../core/platform-object.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import { buildHostedCluster, buildNodePool, desiredReplicas } from './hcp-builders.js';
import { currentPlacementConflict } from './hcp-input-steps.js';
import { verifyOwnership } from './hcp-ownership.js';
import type { HcpHandOn, HcpPass, HcpStep } from './hcp-pass.js';
import { platformWait } from './hcp-readiness.js';

/*
 * The steps of an hcp pass that make the guest (docs/reference/instances.md#hcp-provisioning): the
 * HostedCluster on KubeVirt and its NodePool, and what HyperShift says about them. A conflict in
 * either is an HCPPlacementConflict.
 */

/** What the HostedCluster is made with. */
type HostedClusterInputs = Pick<HcpHandOn, 'placement' | 'hostname' | 'pullSecret' | 'sshKey'>;

/** The HostedCluster: created when missing (then it waits to become Available), else verified. */
export function hostedClusterStep(
  pass: HcpPass,
): HcpStep<keyof HostedClusterInputs, 'hostedCluster'> {
  return {
    name: 'HostedCluster',
    conflict: Reason.HCPPlacementConflict,
    run: async (inputs) => {
      const { placement } = inputs;
      const where = `${placement.hostedClusterNamespace}/${placement.hostedClusterName}`;
      const hostedCluster = pass.objects.cached<PlatformObject>(
        HOSTED_CLUSTERS,
        placement.hostedClusterName,
        placement.hostedClusterNamespace,
      );
      if (hostedCluster) {
        verifyOwnership(hostedCluster, pass.objects.instance, 'HostedCluster');
        return holds({ hostedCluster });
      }
      if (pass.draft.wasReady)
        throw new InstanceFailure(
          Reason.HostedClusterMissing,
          `HostedCluster ${where} of a Ready instance is gone`,
        );
      await createHostedCluster(pass, inputs);
      return waiting({
        reason: Reason.HostedClusterNotAvailable,
        message: `Created HostedCluster ${where}; waiting for it to become Available`,
      });
    },
  };
}

async function createHostedCluster(pass: HcpPass, inputs: HostedClusterInputs): Promise<void> {
  const { api, objects } = pass;
  const { placement } = inputs;
  // Checked again right before creation: a namespace or HostedCluster may have appeared since
  // the placement was recorded.
  const conflict = await currentPlacementConflict(pass, placement);
  if (conflict) throw new InstanceFailure(Reason.HCPPlacementConflict, conflict);
  const hostedCluster = buildHostedCluster(objects.instance, {
    placement,
    hostname: inputs.hostname,
    pullSecretName: inputs.pullSecret,
    sshKeySecretName: inputs.sshKey,
  });
  await api.createIfMissing(HOSTED_CLUSTERS, hostedCluster);
  pass.context.logger.info({ hostedCluster: placement.hostedClusterName }, 'Created HostedCluster');
  api.event(
    objects.instance,
    'Normal',
    'HostedClusterCreated',
    `Created HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName} (control plane namespace ${placement.controlPlaneNamespace})`,
  );
}

/**
 * The NodePool, created when missing; replicas is the one field kept in line with the template.
 */
export function nodePoolStep(pass: HcpPass): HcpStep<'placement' | 'hostedCluster', 'nodePool'> {
  const { api, objects } = pass;
  const instance = objects.instance;
  return {
    name: 'NodePool',
    conflict: Reason.HCPPlacementConflict,
    run: async ({ placement, hostedCluster }) => {
      const existing = api.cached<PlatformObject>(
        NODE_POOLS,
        `${placement.hostedClusterNamespace}/${placement.nodePoolName}`,
      );
      if (!existing) {
        await api.createIfMissing(NODE_POOLS, buildNodePool(instance, placement, hostedCluster));
        pass.context.logger.info({ nodePool: placement.nodePoolName }, 'Created NodePool');
        api.event(
          instance,
          'Normal',
          'NodePoolCreated',
          `Created NodePool ${placement.hostedClusterNamespace}/${placement.nodePoolName} with ${desiredReplicas(instance)} replica(s)`,
        );
        return holds({ nodePool: undefined });
      }
      verifyOwnership(existing, instance, 'NodePool');
      if (existing.spec?.clusterName !== placement.hostedClusterName)
        throw new OwnershipConflictError(
          `NodePool ${placement.nodePoolName} belongs to HostedCluster ${String(existing.spec?.clusterName)}`,
        );
      const replicas = desiredReplicas(instance);
      if (existing.spec?.replicas !== replicas)
        await api.update(NODE_POOLS, { ...existing, spec: { ...existing.spec, replicas } });
      return holds({ nodePool: existing });
    },
  };
}

/** The HostedCluster Available and the NodePool at its replicas. */
export function guestNodesStep(pass: HcpPass): HcpStep<'placement' | 'hostedCluster' | 'nodePool'> {
  return {
    name: 'guest nodes',
    run: ({ placement, hostedCluster, nodePool }) => {
      const wait = platformWait(pass.objects.instance, placement, hostedCluster, nodePool);
      return wait ? waiting(wait) : holds();
    },
  };
}
