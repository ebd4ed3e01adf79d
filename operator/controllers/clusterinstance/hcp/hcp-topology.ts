import { findCondition } from '../../../api/conditions.js';
import type { ClusterInstance } from '../../../api/resources.js';
import { INSTANCES, NAMESPACES, SECRETS } from '../../../api/resources.js';
import {
  HOSTED_CLUSTERS,
  LABEL_NODE_POOL_NAME,
  NODE_POOLS,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../../api/platform-resources.js';
import { isAlreadyExists, isNotFound } from '../../../kube/api-error.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { ResourceType } from '../../../kube/resource-type.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { Manager, WatchSpec } from '../../../runtime/manager.js';
import { upsertInstanceKubeconfig } from '../instance-kubeconfig.js';
import { conflictAs, OwnershipConflictError } from '../ownership-conflict.js';
import { resolvePullSecret } from '../pull-secret.js';
import {
  InstanceFailure,
  InstanceStatusDraft,
  Reason,
  writeInstanceStatus,
} from '../instance-status.js';
import type { Topology } from '../topology.js';
import type { GuestApiProbe } from '../guest-api-probe.js';
import { guestApiProbe } from '../guest-api-probe.js';
import type { PlatformObject, SecretObject } from './hcp-builders.js';
import {
  buildApiRoute,
  buildHostedCluster,
  buildNodePool,
  desiredReplicas,
} from './hcp-builders.js';
import { apiRouteName, kasServingCertName, NamingError } from './hcp-naming.js';
import { isOwnedBy, verifyOwnership } from './hcp-ownership.js';
import type { HcpPlacement } from './hcp-placement.js';
import { placementConflict, plannedPlacement, recordedPlacement } from './hcp-placement.js';
import { hcpWatches } from './hcp-watches.js';
import { ensureKasServingCert, resolveApiHostname } from './hcp-endpoint.js';
import { publishedAccess } from './kubeconfig-rewrite.js';

/** The guest API gives no events: while it does not answer, look again after this long. */
const ENDPOINT_RECHECK_MS = 20_000;

export interface HcpTopologyOptions {
  /** The guest API readiness check; by default a GET of /readyz through DNS. */
  probe?: GuestApiProbe;
}

/** Why the instance is not Ready yet (phase Provisioning, Ready=False). */
interface Wait {
  reason: string;
  message: string;
  requeueAfterMs?: number;
}

const decode = (data: string | undefined): string =>
  Buffer.from(data ?? '', 'base64').toString('utf8');
const key = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * The hcp topology (spec §2.3.4, §2.3.5, §2.3.7, §2.3.12): records a placement that collides with
 * nothing before creating anything, then builds the HostedCluster on KubeVirt, its NodePool and
 * the API Route, and publishes HyperShift's admin kubeconfig pointed at the external endpoint
 * once the guest API answers there. Every wait is for an event, except the guest API itself.
 */
export class HcpTopology implements Topology {
  readonly platformGate = { multiClusterEngine: true, wildcardRoutes: true, whenReady: false };
  private readonly probe: GuestApiProbe;

  constructor(
    private readonly manager: Manager,
    options: HcpTopologyOptions = {},
  ) {
    this.probe = options.probe ?? guestApiProbe();
  }

  watches(): WatchSpec[] {
    return hcpWatches(this.manager);
  }

  async reconcile(instance: ClusterInstance, context: ReconcileContext): Promise<ReconcileResult> {
    const placement = recordedPlacement(instance);
    if (!placement) return this.recordPlacement(instance, context);
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
    const outcome = await this.ensureBacking(instance, placement, draft, context);
    if ('reason' in outcome) {
      draft.waiting(outcome.reason, outcome.message);
      await writeInstanceStatus(this.manager, draft);
      return outcome.requeueAfterMs ? { requeueAfterMs: outcome.requeueAfterMs } : {};
    }
    if (outcome.persist) {
      // A newly chosen endpoint is durable before anything that embeds it is created.
      await writeInstanceStatus(this.manager, draft.phase('Provisioning'));
      return {};
    }
    const published = await upsertInstanceKubeconfig(this.manager, instance, {
      ...outcome,
      context,
    });
    const wasReady = instance.status?.phase === 'Ready';
    await writeInstanceStatus(
      this.manager,
      draft.ready({
        ocpVersion: outcome.ocpVersion,
        apiEndpoint: instance.status!.apiEndpoint!,
        kubeconfig: published,
      }),
    );
    if (!wasReady)
      context.logger.info({ endpoint: instance.status!.apiEndpoint }, 'ClusterInstance is Ready');
    return {};
  }

  /** Chooses and records where the HostedCluster goes; a conflict fails the instance before anything exists. */
  private async recordPlacement(
    instance: ClusterInstance,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
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
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now()).phase('Provisioning');
    draft.status.hyperShift = {
      hostedClusterName: placement.hostedClusterName,
      hostedClusterNamespace: placement.hostedClusterNamespace,
      nodePoolNames: [placement.nodePoolName],
    };
    await writeInstanceStatus(this.manager, draft);
    context.logger.info(
      { hostedCluster: placement.hostedClusterName, controlPlane: placement.controlPlaneNamespace },
      'Recorded HostedCluster placement',
    );
    return {};
  }

  private async placementConflict(
    instance: ClusterInstance,
    placement: HcpPlacement,
  ): Promise<string | undefined> {
    const controlPlaneExists = await this.exists(NAMESPACES, placement.controlPlaneNamespace);
    return placementConflict(instance, placement, {
      hostedClusters: this.manager.informer<KubeObject>(HOSTED_CLUSTERS).list(),
      namespaceExists: () => controlPlaneExists,
      instances: this.manager.informer<ClusterInstance>(INSTANCES).list(),
    });
  }

  /** spec §2.3.4 "Ensure HCP backing", in order; the first thing not there yet is the answer. */
  private async ensureBacking(
    instance: ClusterInstance,
    placement: HcpPlacement,
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Promise<
    Wait | { persist: true } | { persist?: false; access: GuestAccess; ocpVersion: string }
  > {
    const pullSecret = await this.pullSecret(instance);
    const sshKey = await this.workerSshKey(instance);
    const hostname = await conflictAs(Reason.APIEndpointConflict, () =>
      resolveApiHostname(this.manager, instance, placement),
    );
    if (!instance.status?.apiEndpoint) {
      draft.status.apiEndpoint = `https://${hostname}`;
      return { persist: true };
    }
    const cert = await conflictAs(Reason.APIEndpointConflict, () =>
      ensureKasServingCert(this.manager, instance, placement, hostname),
    );
    const hostedCluster = this.cached<PlatformObject>(
      HOSTED_CLUSTERS,
      key(placement.hostedClusterNamespace, placement.hostedClusterName),
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
    const waitForPlatform = this.platformWait(instance, placement, hostedCluster, nodePool);
    if (waitForPlatform) return waitForPlatform;
    const admin = await this.adminKubeconfig(placement, hostedCluster);
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
        requeueAfterMs: ENDPOINT_RECHECK_MS,
      };
    }
    return { access, ocpVersion: observedVersion(hostedCluster) };
  }

  /** The pull secret in the instance namespace (spec §2.3.1): the HostedCluster uses it as it is. */
  private pullSecret(instance: ClusterInstance): Promise<string> {
    return resolvePullSecret(instance, (name) => this.secret(instance.metadata!.namespace!, name));
  }

  private async workerSshKey(instance: ClusterInstance): Promise<string | undefined> {
    const name = instance.spec.template.hcpWorkerSSHKeyRef?.name;
    if (!name) return undefined;
    const namespace = instance.metadata!.namespace!;
    const secret = await this.secret(namespace, name);
    if (!decode(secret?.data?.['id_rsa.pub']).trim())
      throw new InstanceFailure(
        Reason.InvalidWorkerSSHKey,
        `worker SSH key Secret ${namespace}/${name} is missing or has no data key "id_rsa.pub"`,
      );
    return name;
  }

  private async createHostedCluster(
    instance: ClusterInstance,
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
    await this.createIfMissing(HOSTED_CLUSTERS, hostedCluster);
    context.logger.info({ hostedCluster: placement.hostedClusterName }, 'Created HostedCluster');
    void this.manager.events.record(
      instance,
      'Normal',
      'HostedClusterCreated',
      `Created HostedCluster ${placement.hostedClusterNamespace}/${placement.hostedClusterName} (control plane namespace ${placement.controlPlaneNamespace})`,
    );
  }

  /** The NodePool, created when missing; replicas is the one field kept in line with the template. */
  private async ensureNodePool(
    instance: ClusterInstance,
    placement: HcpPlacement,
    hostedCluster: PlatformObject,
    context: ReconcileContext,
  ): Promise<PlatformObject | undefined> {
    const existing = this.cached<PlatformObject>(
      NODE_POOLS,
      key(placement.hostedClusterNamespace, placement.nodePoolName),
    );
    if (!existing) {
      await this.createIfMissing(NODE_POOLS, buildNodePool(instance, placement, hostedCluster));
      context.logger.info({ nodePool: placement.nodePoolName }, 'Created NodePool');
      void this.manager.events.record(
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
      await this.manager.client.update(NODE_POOLS, {
        ...existing,
        spec: { ...existing.spec, replicas },
      });
    }
    return existing;
  }

  /** HostedCluster Available and NodePool at its replicas, or why not. */
  private platformWait(
    instance: ClusterInstance,
    placement: HcpPlacement,
    hostedCluster: PlatformObject,
    nodePool: PlatformObject | undefined,
  ): Wait | undefined {
    const available = findCondition((hostedCluster.status?.conditions ?? []) as never, 'Available');
    const hcName = `${placement.hostedClusterNamespace}/${placement.hostedClusterName}`;
    if (available?.status !== 'True')
      return {
        reason: Reason.HostedClusterNotAvailable,
        message: available
          ? `HostedCluster ${hcName} is not Available (${available.reason}): ${available.message}`
          : `waiting for HostedCluster ${hcName} to become Available`,
      };
    const wanted = desiredReplicas(instance);
    const replicas = Number(nodePool?.status?.replicas ?? 0);
    if (replicas < wanted)
      return {
        reason: Reason.NodePoolNotReady,
        message: `NodePool ${placement.hostedClusterNamespace}/${placement.nodePoolName} has ${replicas} of ${wanted} replica(s)`,
      };
    return undefined;
  }

  /** HyperShift's admin kubeconfig (status.kubeConfig names its Secret), or why it is not there. */
  private async adminKubeconfig(
    placement: HcpPlacement,
    hostedCluster: PlatformObject,
  ): Promise<string | Wait> {
    const name = (hostedCluster.status?.kubeconfig as { name?: string } | undefined)?.name;
    const secret = name ? await this.secret(placement.hostedClusterNamespace, name) : undefined;
    const kubeconfig = decode(secret?.data?.kubeconfig);
    if (kubeconfig) return kubeconfig;
    return {
      reason: Reason.KubeconfigUnavailable,
      message: name
        ? `admin kubeconfig Secret ${placement.hostedClusterNamespace}/${name} has no data key "kubeconfig" yet`
        : `HostedCluster ${placement.hostedClusterName} has no status.kubeConfig yet`,
    };
  }

  /** The API Route in the control plane namespace; true once admitted. */
  private async ensureRoute(
    instance: ClusterInstance,
    placement: HcpPlacement,
    hostname: string,
    context: ReconcileContext,
  ): Promise<boolean> {
    const name = apiRouteName(instance.metadata!.name!);
    const route = this.cached<PlatformObject>(ROUTES, key(placement.controlPlaneNamespace, name));
    if (!route) {
      await this.createIfMissing(ROUTES, buildApiRoute(instance, placement, hostname));
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

  /** spec §2.3.7, hcp: the HostedCluster, then the NodePool as a backup, then what is left behind. */
  async teardown(instance: ClusterInstance): Promise<'done' | 'pending'> {
    const placement = recordedPlacement(instance);
    // Nothing is created before the placement is recorded.
    if (!placement) return 'done';
    const { hostedClusterNamespace: ns, controlPlaneNamespace: cp } = placement;
    let pending = false;
    pending =
      (await this.deleteOwned(instance, HOSTED_CLUSTERS, ns, placement.hostedClusterName)) ||
      pending;
    pending = (await this.deleteOwned(instance, NODE_POOLS, ns, placement.nodePoolName)) || pending;
    pending =
      (await this.deleteOwned(
        instance,
        SECRETS,
        ns,
        kasServingCertName(instance.metadata!.name!),
      )) || pending;
    pending =
      (await this.deleteOwned(instance, ROUTES, cp, apiRouteName(instance.metadata!.name!))) ||
      pending;
    const workers = `${LABEL_NODE_POOL_NAME}=${placement.nodePoolName}`;
    const vmis = await this.manager.client.list(VIRTUAL_MACHINE_INSTANCES, {
      namespace: cp,
      labelSelector: workers,
    });
    if (vmis.items.length > 0) pending = true;
    const pods = await this.manager.client.list(PODS, { namespace: cp, labelSelector: workers });
    for (const pod of pods.items) {
      pending = true;
      await this.ignoreNotFound(this.manager.client.delete(PODS, pod.metadata!.name!, cp));
    }
    const volumes = await this.manager.client.list(PERSISTENT_VOLUME_CLAIMS, { namespace: cp });
    if (volumes.items.length > 0) pending = true;
    return pending ? 'pending' : 'done';
  }

  /** Deletes an object of the instance; true while it is still there (another finalizer runs). */
  private async deleteOwned(
    instance: ClusterInstance,
    type: ResourceType,
    namespace: string,
    name: string,
  ): Promise<boolean> {
    const object = await this.live(type, namespace, name);
    // Someone else's object of that name is never touched.
    if (!object || !isOwnedBy(object, instance)) return false;
    if (!object.metadata?.deletionTimestamp) {
      await this.ignoreNotFound(
        this.manager.client.delete(type, name, namespace, { uid: object.metadata?.uid }),
      );
    }
    return (await this.live(type, namespace, name)) !== undefined;
  }

  private cached<T extends KubeObject>(type: ResourceType, objectKey: string): T | undefined {
    return this.manager.informer<T>(type).get(objectKey);
  }

  /** A Secret from the cache, else live (the cache may not have caught up with a new one). */
  private async secret(namespace: string, name: string): Promise<SecretObject | undefined> {
    return (
      this.cached<SecretObject>(SECRETS, key(namespace, name)) ??
      (await this.live<SecretObject>(SECRETS, namespace, name))
    );
  }

  private async live<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<T | undefined> {
    try {
      return await this.manager.client.get<T>(type, name, namespace);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async exists(type: ResourceType, name: string): Promise<boolean> {
    return (await this.live(type, undefined, name)) !== undefined;
  }

  private async createIfMissing(type: ResourceType, object: KubeObject): Promise<void> {
    try {
      await this.manager.client.create(type, object);
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

function isAdmitted(route: PlatformObject): boolean {
  const ingress = (route.status?.ingress ?? []) as {
    host?: string;
    conditions?: { type: string; status: string }[];
  }[];
  return ingress.some(
    (entry) =>
      (!entry.host || entry.host === route.spec?.host) &&
      entry.conditions?.some((c) => c.type === 'Admitted' && c.status === 'True'),
  );
}

/** HostedCluster status.version.desired.version; empty when HyperShift has not said. */
function observedVersion(hostedCluster: PlatformObject): string {
  const version = hostedCluster.status?.version as { desired?: { version?: string } } | undefined;
  return version?.desired?.version ?? '';
}
