import type { ClusterInstance, ClusterLease, ClusterPool } from '../api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../api/resources.js';
import { CONFIG_MAPS, EVENTS, JOBS, PODS } from '../api/core-resources.js';
import { ApiError } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource-type.js';
import { kubeconfigSecretName } from '../../contracts/names.js';
import { LABEL_CLUSTER_INSTANCE, LABEL_POOL } from '../../contracts/labels.js';
import { DIAGNOSED_KINDS, LABEL_DIAGNOSTICS } from './diagnosed-kinds.js';
import { DIAGNOSTICS_BOUNDS } from './diagnostics-bounds.js';
import type { Diagnostics, DiagnosticsTarget, GuestFacts } from './diagnostics-facts.js';
import type { DiagnosticsReader } from './diagnostics-reader.js';
import { jobFacts } from './job-facts.js';
import type { CoreEvent, StatusObject } from './object-facts.js';
import { missingFacts, objectFacts } from './object-facts.js';

/** A Secret that may hold the operator-published kubeconfig of the instance. */
export interface SecretRef {
  name: string;
  namespace: string;
}

/**
 * Reaches the guest of a Ready instance (operator/diagnostics/guest-facts.ts): only at the
 * endpoint the instance status records, with a kubeconfig read strictly from one of `secrets`.
 */
export type GuestCollector = (
  instance: ClusterInstance,
  secrets: readonly SecretRef[],
) => Promise<GuestFacts>;

export interface CollectOptions {
  now: number;
  guest?: GuestCollector;
}

/** Why a read failed, in words that name no credential. */
export function readFailure(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 403) return 'not readable with these credentials (Forbidden)';
    return `the read failed: ${error.status} ${error.reason}`;
  }
  return `the read failed: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * One diagnostics report (docs/diagnostics.md#what-is-collected): the target, the objects it
 * leads to (lease → instance → pool; instance → its VM, VMI and DataVolume or HostedCluster and
 * NodePools, and its crc-agent Jobs), their status and Events, and, when a guest collector is
 * given, the guest's view. A part that cannot be read is noted, never fatal.
 */
export async function collectDiagnostics(
  target: DiagnosticsTarget,
  reader: DiagnosticsReader,
  options: CollectOptions,
): Promise<Diagnostics> {
  const collection = new Collection(target, reader, options);
  await collection.run();
  return collection.diagnostics;
}

class Collection {
  readonly diagnostics: Diagnostics;

  constructor(
    private readonly target: DiagnosticsTarget,
    private readonly reader: DiagnosticsReader,
    private readonly options: CollectOptions,
  ) {
    this.diagnostics = {
      target,
      collectedAt: new Date(options.now).toISOString(),
      objects: [],
      jobs: [],
      bundles: [],
      notes: [],
      truncated: [],
    };
  }

  async run(): Promise<void> {
    const { kind, name } = this.target;
    if (kind === 'lease') await this.lease(name);
    else if (kind === 'instance') await this.instance(name, []);
    else await this.pool(name, true);
  }

  private get namespace(): string {
    return this.target.namespace;
  }

  /** Reads and describes one object; undefined (noted) when it cannot be read. */
  private async describe<T extends StatusObject>(
    type: ResourceType,
    name: string,
    namespace = this.namespace,
  ): Promise<T | undefined> {
    let object: T | undefined;
    try {
      object = await this.reader.get<T>(type, name, namespace);
    } catch (error) {
      this.diagnostics.objects.push(missingFacts(type.kind, name, namespace, readFailure(error)));
      return undefined;
    }
    if (!object) {
      this.diagnostics.objects.push(missingFacts(type.kind, name, namespace, 'not found'));
      return undefined;
    }
    this.diagnostics.objects.push(objectFacts(type.kind, object, await this.eventsOf(object)));
    return object;
  }

  /** The Events about exactly this object (by UID). */
  async eventsOf(object: KubeObject): Promise<CoreEvent[]> {
    const { uid, namespace, name } = object.metadata ?? {};
    if (!uid) return [];
    try {
      return await this.reader.list<CoreEvent>(EVENTS, {
        namespace: namespace ?? this.namespace,
        fieldSelector: `involvedObject.uid=${uid}`,
      });
    } catch (error) {
      this.diagnostics.notes.push(
        `Events of ${object.kind ?? ''} ${name ?? ''}: ${readFailure(error)}`,
      );
      return [];
    }
  }

  private async lease(name: string): Promise<void> {
    const lease = await this.describe<ClusterLease & StatusObject>(LEASES, name);
    if (!lease) return;
    const instanceName = lease.status?.instanceRef?.name;
    const leaseSecret = {
      name: lease.status?.kubeconfigSecretRef?.name ?? kubeconfigSecretName(name),
      namespace: this.namespace,
    };
    if (instanceName) {
      await this.instance(instanceName, [leaseSecret], lease.status?.instanceRef?.uid);
      return;
    }
    this.diagnostics.notes.push(`ClusterLease ${name} has no instance yet`);
    await this.pool(lease.spec.poolRef.name, false);
  }

  private async instance(name: string, secrets: SecretRef[], uid?: string): Promise<void> {
    const instance = await this.describe<ClusterInstance & StatusObject>(INSTANCES, name);
    if (!instance) return;
    if (uid && instance.metadata?.uid !== uid)
      this.diagnostics.notes.push(
        `ClusterInstance ${name} is not the one the lease was bound to (UID ${uid}): it was replaced`,
      );
    await this.platform(instance);
    await this.agentJobs(instance);
    const pool = instance.spec.poolRef?.name;
    if (pool) await this.pool(pool, false);
    await this.bundles(`${LABEL_CLUSTER_INSTANCE}=${name}`);
    await this.guest(instance, secrets);
  }

  /** The VM, VMI and DataVolume of a crc instance; the HostedCluster and NodePools of an hcp one. */
  private async platform(instance: ClusterInstance): Promise<void> {
    const { crc, hyperShift } = instance.status ?? {};
    if (crc?.vmName) {
      await this.describe(DIAGNOSED_KINDS.virtualMachine, crc.vmName);
      await this.describe(DIAGNOSED_KINDS.virtualMachineInstance, crc.vmName);
    }
    if (crc?.dataVolumeName) await this.describe(DIAGNOSED_KINDS.dataVolume, crc.dataVolumeName);
    if (!hyperShift?.hostedClusterName) return;
    const namespace = hyperShift.hostedClusterNamespace ?? this.namespace;
    await this.describe(DIAGNOSED_KINDS.hostedCluster, hyperShift.hostedClusterName, namespace);
    for (const nodePool of hyperShift.nodePoolNames ?? [])
      await this.describe(DIAGNOSED_KINDS.nodePool, nodePool, namespace);
  }

  /** The instance's crc-agent Jobs (newest first), their pods and the tails of their logs. */
  private async agentJobs(instance: ClusterInstance): Promise<void> {
    if (instance.spec.type !== 'crc') return;
    const jobs = await this.listed(JOBS, `${LABEL_CLUSTER_INSTANCE}=${instance.metadata!.name!}`);
    const newest = jobs
      .sort((a, b) =>
        (b.metadata?.creationTimestamp ?? '').localeCompare(a.metadata?.creationTimestamp ?? ''),
      )
      .slice(0, DIAGNOSTICS_BOUNDS.jobsPerInstance);
    for (const job of newest) {
      const pods = await this.listed(
        PODS,
        `batch.kubernetes.io/controller-uid=${job.metadata?.uid ?? ''}`,
      );
      this.diagnostics.jobs.push(
        await jobFacts(job, pods, await this.eventsOf(job), this.reader, this.diagnostics.notes),
      );
    }
  }

  private async listed(type: ResourceType, labelSelector: string): Promise<StatusObject[]> {
    try {
      return await this.reader.list<StatusObject>(type, {
        namespace: this.namespace,
        labelSelector,
      });
    } catch (error) {
      this.diagnostics.notes.push(`${type.kind}s (${labelSelector}): ${readFailure(error)}`);
      return [];
    }
  }

  /** The pool; for a pool report, also its instances and its stored bundles. */
  private async pool(name: string, whole: boolean): Promise<void> {
    const pool = await this.describe<ClusterPool & StatusObject>(POOLS, name);
    if (!pool || !whole) return;
    let instances: (ClusterInstance & StatusObject)[] = [];
    try {
      instances = await this.reader.list(INSTANCES, { namespace: this.namespace });
    } catch (error) {
      this.diagnostics.notes.push(`ClusterInstances: ${readFailure(error)}`);
    }
    const members = instances.filter((i) => i.spec.poolRef?.name === name);
    for (const instance of members.slice(0, DIAGNOSTICS_BOUNDS.instancesPerPool))
      this.diagnostics.objects.push(
        objectFacts(INSTANCES.kind, instance, await this.eventsOf(instance)),
      );
    if (members.length > DIAGNOSTICS_BOUNDS.instancesPerPool)
      this.diagnostics.truncated.push(
        `instances: ${members.length - DIAGNOSTICS_BOUNDS.instancesPerPool} more not described`,
      );
    await this.bundles(`${LABEL_POOL}=${name}`);
  }

  /** The names of the stored diagnostics ConfigMaps the selector finds (metadata only). */
  private async bundles(selector: string): Promise<void> {
    let found: KubeObject[];
    try {
      found = await this.reader.list(CONFIG_MAPS, {
        namespace: this.namespace,
        labelSelector: `${LABEL_DIAGNOSTICS}=true,${selector}`,
        metadataOnly: true,
      });
    } catch (error) {
      this.diagnostics.notes.push(`stored diagnostics ConfigMaps: ${readFailure(error)}`);
      return;
    }
    for (const bundle of found) {
      const name = `${this.namespace}/${bundle.metadata?.name ?? ''}`;
      if (!this.diagnostics.bundles.includes(name)) this.diagnostics.bundles.push(name);
    }
  }

  private async guest(instance: ClusterInstance, secrets: SecretRef[]): Promise<void> {
    const collect = this.options.guest;
    if (!collect) return;
    const own = instance.status?.kubeconfigSecretRef?.name;
    const candidates = own ? [...secrets, { name: own, namespace: this.namespace }] : secrets;
    if (
      instance.status?.phase !== 'Ready' ||
      !instance.status.apiEndpoint ||
      candidates.length === 0
    ) {
      this.diagnostics.notes.push(
        `guest: not reached, ClusterInstance ${instance.metadata?.name ?? ''} has no published kubeconfig and endpoint (phase ${instance.status?.phase ?? 'unknown'})`,
      );
      return;
    }
    this.diagnostics.guest = await collect(instance, candidates);
  }
}
