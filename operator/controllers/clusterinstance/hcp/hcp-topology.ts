import type { ClusterInstance } from '../../../api/resources.js';
import { INSTANCES, NAMESPACES, SECRETS } from '../../../api/resources.js';
import { HOSTED_CLUSTERS, NODE_POOLS, ROUTES } from '../../../api/platform-resources.js';
import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import { decodeBase64 as decode } from '../core/encoding.js';
import type { Instance, InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { markReady } from '../core/mark-ready.js';
import { NamingError } from '../core/naming.js';
import { conflictAs } from '../core/ownership.js';
import { OwnershipConflictError } from '../../../reconcile/step-errors.js';
import type { PlatformObject } from '../core/platform-object.js';
import { resolvePullSecret } from '../core/pull-secret.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { Wait } from '../../../reconcile/verdict.js';
import type { InstanceTimings } from '../core/timings.js';
import type { TeardownOutcome, Topology } from '../topology.js';
import type { GuestApiProbe } from '../guest-api-probe.js';
import { guestApiProbe } from '../guest-api-probe.js';
import type { SecretObject } from './hcp-builders.js';
import {
  buildApiRoute,
  buildHostedCluster,
  buildNodePool,
  desiredReplicas,
} from './hcp-builders.js';
import { apiRouteName } from './hcp-naming.js';
import { hcpObjects, verifyOwnership } from './hcp-ownership.js';
import type { HcpPlacement } from './hcp-placement.js';
import { placementConflict, plannedPlacement, recordedPlacement } from './hcp-placement.js';
import { adminKubeconfig, isAdmitted, observedVersion, platformWait } from './hcp-readiness.js';
import { hcpTeardown } from './hcp-teardown.js';
import { hcpWatches } from './hcp-watches.js';
import { ensureKasServingCert, resolveApiHostname } from './hcp-endpoint.js';
import { publishedAccess } from './kubeconfig-rewrite.js';

export interface HcpTopologyOptions {
  /** The guest API readiness check; by default a GET of /readyz through DNS. */
  probe?: GuestApiProbe;
}

/**
 * The hcp topology (docs/reference/instances.md#hcp-provisioning,
 * docs/reference/instances.md#hcp-readiness, docs/reference/instances.md#deletion,
 * docs/reference/instances.md#hcp-placement-and-ownership): records a placement that collides with
 * nothing before creating anything, then builds the HostedCluster on KubeVirt, its NodePool and the
 * API Route, and publishes HyperShift's admin kubeconfig pointed at the external endpoint once the
 * guest API answers there. Every wait is for an event, except the guest API itself.
 */
export class HcpTopology implements Topology {
  readonly platformGate = { multiClusterEngine: true, wildcardRoutes: true, whenReady: false };
  private readonly probe: GuestApiProbe;

  constructor(
    private readonly api: InstanceApi,
    private readonly timings: InstanceTimings,
    options: HcpTopologyOptions = {},
  ) {
    this.probe = options.probe ?? guestApiProbe();
  }

  watches(): WatchSpec[] {
    return hcpWatches(this.api);
  }

  async reconcile(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult> {
    const instance = draft.instance;
    const placement = recordedPlacement(instance);
    // The placement is durable before anything is created in it.
    if (!placement) return this.recordPlacement(draft, context);
    const objects = hcpObjects(this.api, instance);
    const outcome = await this.ensureBacking(objects, placement, draft, context);
    if ('reason' in outcome) {
      draft.waiting(outcome.reason, outcome.message);
      return outcome.requeueAfterMs ? { requeueAfterMs: outcome.requeueAfterMs } : {};
    }
    if (outcome.persist) {
      // A newly chosen endpoint is durable before anything that embeds it is created.
      draft.phase('Provisioning');
      return {};
    }
    const apiEndpoint = instance.status!.apiEndpoint!;
    await markReady(this.api, draft, { ...outcome, apiEndpoint }, context);
    return {};
  }

  async teardown(draft: InstanceStatusDraft): Promise<TeardownOutcome> {
    const pending = await hcpTeardown(this.api, hcpObjects(this.api, draft.instance));
    return pending ? 'pending' : 'done';
  }

  /**
   * Chooses and records where the HostedCluster goes; a conflict fails the instance before anything
   * exists.
   */
  private async recordPlacement(
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const instance = draft.instance;
    let placement: HcpPlacement;
    try {
      placement = plannedPlacement(instance);
    } catch (error) {
      if (error instanceof NamingError)
        throw new InstanceFailure(Reason.HCPPlacementConflict, error.message);
      throw error;
    }
    const conflict = await this.placementConflict(instance, placement);
    if (conflict) throw new InstanceFailure(Reason.HCPPlacementConflict, conflict);
    draft.phase('Provisioning');
    draft.status.hyperShift = {
      hostedClusterName: placement.hostedClusterName,
      hostedClusterNamespace: placement.hostedClusterNamespace,
      nodePoolNames: [placement.nodePoolName],
    };
    context.logger.info(
      { hostedCluster: placement.hostedClusterName, controlPlane: placement.controlPlaneNamespace },
      'Recorded HostedCluster placement',
    );
    return {};
  }

  private async placementConflict(
    instance: Instance,
    placement: HcpPlacement,
  ): Promise<string | undefined> {
    const controlPlane = await this.api.get(NAMESPACES, placement.controlPlaneNamespace);
    return placementConflict(instance, placement, {
      hostedClusters: this.api.cachedList<KubeObject>(HOSTED_CLUSTERS),
      namespaceExists: () => controlPlane !== undefined,
      instances: this.api.cachedList<ClusterInstance>(INSTANCES),
    });
  }

  /**
   * docs/reference/instances.md#hcp-provisioning, in order; the first thing not there yet is the
   * answer.
   */
  private async ensureBacking(
    objects: InstanceObjects,
    placement: HcpPlacement,
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Promise<
    Wait | { persist: true } | { persist?: false; access: GuestAccess; ocpVersion: string }
  > {
    const instance = objects.instance;
    const pullSecret = await resolvePullSecret(objects);
    const sshKey = await this.workerSshKey(objects);
    const hostname = await conflictAs(Reason.APIEndpointConflict, () =>
      resolveApiHostname(this.api, instance, placement),
    );
    if (!instance.status?.apiEndpoint) {
      draft.status.apiEndpoint = `https://${hostname}`;
      return { persist: true };
    }
    const cert = await conflictAs(Reason.APIEndpointConflict, () =>
      ensureKasServingCert(this.api, instance, placement, hostname),
    );
    const hostedCluster = objects.cached<PlatformObject>(
      HOSTED_CLUSTERS,
      placement.hostedClusterName,
      placement.hostedClusterNamespace,
    );
    if (!hostedCluster) {
      if (instance.status?.phase === 'Ready')
        throw new InstanceFailure(
          Reason.HostedClusterMissing,
          `HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName} of a Ready instance is gone`,
        );
      await this.createHostedCluster(
        instance,
        placement,
        { hostname, pullSecret, sshKey },
        context,
      );
      return {
        reason: Reason.HostedClusterNotAvailable,
        message: `Created HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName}; waiting for it to become Available`,
      };
    }
    await conflictAs(Reason.HCPPlacementConflict, () =>
      verifyOwnership(hostedCluster, instance, 'HostedCluster'),
    );
    const nodePool = await this.ensureNodePool(instance, placement, hostedCluster, context);
    const waitForPlatform = platformWait(instance, placement, hostedCluster, nodePool);
    if (waitForPlatform) return waitForPlatform;
    const admin = await adminKubeconfig(objects, placement, hostedCluster);
    if (typeof admin !== 'string') return admin;
    const route = await conflictAs(Reason.APIEndpointConflict, () =>
      this.ensureRoute(instance, placement, hostname, context),
    );
    if (!route)
      return {
        reason: Reason.APIEndpointRouteNotAdmitted,
        message: `waiting for the API Route for endpoint "${instance.status.apiEndpoint}" to be admitted`,
      };
    const access = publishedAccess(placement.hostedClusterNamespace, hostedCluster, admin, {
      endpoint: instance.status.apiEndpoint,
      caPem: cert,
    });
    if ('reason' in access) return access;
    try {
      await this.probe(access);
    } catch (error) {
      return {
        reason: Reason.APIEndpointUnavailable,
        message: `waiting for external HCP API endpoint ${instance.status.apiEndpoint}: ${(error as Error).message}`,
        requeueAfterMs: this.timings.endpointRecheckMs,
      };
    }
    return { access, ocpVersion: observedVersion(hostedCluster) };
  }

  private async workerSshKey(objects: InstanceObjects): Promise<string | undefined> {
    const name = objects.instance.spec.template.hcpWorkerSSHKeyRef?.name;
    if (!name) return undefined;
    const namespace = objects.namespace;
    const secret = await objects.current<SecretObject>(SECRETS, name);
    if (!decode(secret?.data?.['id_rsa.pub']).trim())
      throw new InstanceFailure(
        Reason.InvalidWorkerSSHKey,
        `worker SSH key Secret ${namespace}/${name} is missing or has no data key "id_rsa.pub"`,
      );
    return name;
  }

  private async createHostedCluster(
    instance: Instance,
    placement: HcpPlacement,
    inputs: { hostname: string; pullSecret: string; sshKey: string | undefined },
    context: ReconcileContext,
  ): Promise<void> {
    // Checked again right before creation: a namespace or HostedCluster may have appeared since
    // the placement was recorded.
    const conflict = await this.placementConflict(instance, placement);
    if (conflict) throw new InstanceFailure(Reason.HCPPlacementConflict, conflict);
    const hostedCluster = buildHostedCluster(instance, {
      placement,
      hostname: inputs.hostname,
      pullSecretName: inputs.pullSecret,
      sshKeySecretName: inputs.sshKey,
    });
    await this.api.createIfMissing(HOSTED_CLUSTERS, hostedCluster);
    context.logger.info({ hostedCluster: placement.hostedClusterName }, 'Created HostedCluster');
    this.api.event(
      instance,
      'Normal',
      'HostedClusterCreated',
      `Created HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName} (control plane namespace ${placement.controlPlaneNamespace})`,
    );
  }

  /**
   * The NodePool, created when missing; replicas is the one field kept in line with the template.
   */
  private async ensureNodePool(
    instance: Instance,
    placement: HcpPlacement,
    hostedCluster: Stored<PlatformObject>,
    context: ReconcileContext,
  ): Promise<PlatformObject | undefined> {
    const existing = this.api.cached<PlatformObject>(
      NODE_POOLS,
      `${placement.hostedClusterNamespace}/${placement.nodePoolName}`,
    );
    if (!existing) {
      await this.api.createIfMissing(NODE_POOLS, buildNodePool(instance, placement, hostedCluster));
      context.logger.info({ nodePool: placement.nodePoolName }, 'Created NodePool');
      this.api.event(
        instance,
        'Normal',
        'NodePoolCreated',
        `Created NodePool ${placement.hostedClusterNamespace}/${placement.nodePoolName} with ${desiredReplicas(instance)} replica(s)`,
      );
      return undefined;
    }
    await conflictAs(Reason.HCPPlacementConflict, () => {
      verifyOwnership(existing, instance, 'NodePool');
      if (existing.spec?.clusterName !== placement.hostedClusterName)
        throw new OwnershipConflictError(
          `NodePool ${placement.nodePoolName} belongs to HostedCluster ${String(existing.spec?.clusterName)}`,
        );
    });
    const replicas = desiredReplicas(instance);
    if (existing.spec?.replicas !== replicas) {
      await this.api.update(NODE_POOLS, {
        ...existing,
        spec: { ...existing.spec, replicas },
      });
    }
    return existing;
  }

  /** The API Route in the control plane namespace; true once admitted. */
  private async ensureRoute(
    instance: Instance,
    placement: HcpPlacement,
    hostname: string,
    context: ReconcileContext,
  ): Promise<boolean> {
    const name = apiRouteName(instance.metadata.name);
    const route = this.api.cached<PlatformObject>(
      ROUTES,
      `${placement.controlPlaneNamespace}/${name}`,
    );
    if (!route) {
      await this.api.createIfMissing(ROUTES, buildApiRoute(instance, placement, hostname));
      context.logger.info({ route: name, host: hostname }, 'Created Route');
      return false;
    }
    verifyOwnership(route, instance, 'Route');
    if (route.spec?.host !== hostname)
      throw new OwnershipConflictError(
        `Route ${placement.controlPlaneNamespace}/${name} has host "${String(route.spec?.host)}", expected "${hostname}"`,
      );
    return isAdmitted(route);
  }
}
