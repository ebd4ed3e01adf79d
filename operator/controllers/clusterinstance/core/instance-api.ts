import type { Registry } from 'prom-client';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import { BUNDLES } from '../../../../client/api/resources.js';
import type { ListOptions } from '../../../../client/kube/api-client.js';
import { isNotFound } from '../../../../client/kube/api-error.js';
import type { DeleteOptions } from '../../../kube/kube-client.js';
import type { KubeObject, Stored, StoredCluster } from '../../../kube/objects.js';
import { splitKey } from '../../../kube/objects.js';
import type { NamespacedType, ResourceType } from '../../../../client/kube/resource-type.js';
import type { CacheView } from '../../../runtime/cache.js';
import type { EventType } from '../../../runtime/event-recorder.js';
import type { ControllerPorts } from '../../../runtime/ports.js';
import type { NamespacePolicy } from '../../namespace-policy.js';
import { namespacePolicyFrom } from '../../namespace-policy.js';

/** A ClusterInstance as stored: name, namespace, UID and resourceVersion present. */
export type Instance = Stored<ClusterInstance>;

/** What the instance engine needs of the operator's settings. */
export interface InstanceSettings {
  crcAgentImage: string;
  /** The shared ClusterRole the crc-agent accounts are bound to. */
  crcAgentClusterRole: string;
  /** The operator's own namespace, where CRCBundle builds boot their validation instances. */
  operatorNamespace: string;
}

/**
 * Every API access of the instance engine, in one place: reads from the shared caches, live
 * reads and writes, Events, the clock and the settings, all through the controller's ports.
 * Nothing else in clusterinstance/ touches the ports.
 *
 * Caches exist for the kinds the instance controller watches; everything else is read live.
 */
export class InstanceApi {
  /** The kinds the instance controller watches, by `apiVersion/plural`; set at registration. */
  private watched = new Set<string>();

  constructor(
    private readonly ports: ControllerPorts,
    readonly settings: InstanceSettings,
    readonly metricsRegistry: Registry,
  ) {}

  /**
   * Limits cache reads to the kinds the controller watches. Reading another kind from the cache
   * would start a cluster-wide watch of it that the operator's role may not allow (it may create
   * and get ServiceAccounts, not list them); such reads come back empty and callers read live.
   */
  cacheOnly(types: readonly ResourceType[]): void {
    this.watched = new Set(types.map(kindId));
  }

  now(): number {
    return this.ports.clock.now();
  }

  /** From the cache, by key ("namespace/name", or "name" when cluster-scoped). */
  cached<T extends KubeObject>(type: NamespacedType, key: string): Stored<T> | undefined;
  cached<T extends KubeObject>(type: ResourceType, key: string): StoredCluster<T> | undefined;
  cached<T extends KubeObject>(type: ResourceType, key: string): Stored<T> | undefined {
    if (!this.watched.has(kindId(type))) return undefined;
    const { namespace, name } = splitKey(key);
    return this.view<T>(type).get(name, namespace);
  }

  cachedList<T extends KubeObject>(
    type: NamespacedType,
    filter?: (object: Stored<T>) => boolean,
  ): Stored<T>[];
  cachedList<T extends KubeObject>(
    type: ResourceType,
    filter?: (object: StoredCluster<T>) => boolean,
  ): StoredCluster<T>[];
  cachedList<T extends KubeObject>(
    type: ResourceType,
    filter?: (object: Stored<T>) => boolean,
  ): Stored<T>[] {
    if (!this.watched.has(kindId(type))) return [];
    return this.view<T>(type).list(undefined, filter);
  }

  /** A live read; undefined when it does not exist. The object carries its apiVersion and kind. */
  get<T extends KubeObject>(
    type: NamespacedType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T> | undefined>;
  get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<StoredCluster<T> | undefined>;
  async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<Stored<T> | undefined> {
    const object = await this.ports.client.getOrUndefined<T>(
      type as NamespacedType,
      name,
      (type.namespaced ? namespace : undefined) as string,
    );
    return object && { apiVersion: type.apiVersion, kind: type.kind, ...object };
  }

  /** Every object the options match, all pages read. */
  list<T extends KubeObject>(type: NamespacedType, options: ListOptions): Promise<Stored<T>[]>;
  list<T extends KubeObject>(type: ResourceType, options: ListOptions): Promise<StoredCluster<T>[]>;
  list<T extends KubeObject>(type: ResourceType, options: ListOptions): Promise<Stored<T>[]> {
    const { namespace, labelSelector, fieldSelector, metadataOnly } = options;
    return this.ports.client.list<T>(type as NamespacedType, {
      namespace,
      labelSelector,
      fieldSelector,
      metadataOnly,
    });
  }

  create<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  create<T extends KubeObject>(type: ResourceType, object: T): Promise<StoredCluster<T>>;
  create<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return this.ports.client.create<T>(type as NamespacedType, object);
  }

  /** Creates the object unless one of its name exists; true when this call created it. */
  async createIfMissing(type: ResourceType, object: KubeObject): Promise<boolean> {
    return (await this.ports.client.createIfAbsent(type as NamespacedType, object)) !== undefined;
  }

  update<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  update<T extends KubeObject>(type: ResourceType, object: T): Promise<StoredCluster<T>>;
  update<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return this.ports.client.update<T>(type as NamespacedType, object);
  }

  updateStatus<T extends KubeObject>(type: NamespacedType, object: T): Promise<Stored<T>>;
  updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<StoredCluster<T>>;
  updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<Stored<T>> {
    return this.ports.client.updateStatus<T>(type as NamespacedType, object);
  }

  /**
   * Deletes exactly this object (by its UID, as it was read); one that is gone already is fine,
   * another object of its name is a conflict.
   */
  async delete(
    type: ResourceType,
    object: KubeObject,
    options: Pick<DeleteOptions, 'propagationPolicy'> = {},
  ): Promise<void> {
    const { name, namespace, uid, resourceVersion = '' } = object.metadata ?? {};
    if (!name || !uid) throw new Error(`${type.kind} ${name ?? ''}: a delete names the UID`);
    try {
      await this.ports.client.delete(
        type,
        { metadata: { name, namespace, uid, resourceVersion } },
        options,
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /**
   * The namespace opt-in (docs/reference/instances.md#namespace-policy), from the Namespace cache,
   * else live. A CRCBundle build's validation instance needs none: it lives in the operator's own
   * namespace, where tenants cannot write, controlled by the bundle the admin asked to be built.
   */
  async namespacePolicy(instance: Instance): Promise<NamespacePolicy> {
    const policy = await namespacePolicyFrom(this.ports, instance.metadata.namespace);
    if (policy.enabled || policy.terminating || !this.isBundleValidation(instance)) return policy;
    return {
      enabled: true,
      terminating: false,
      reason: 'BundleValidation',
      message: "A CRCBundle build's validation instance in the operator namespace",
    };
  }

  private isBundleValidation(instance: Instance): boolean {
    return (
      instance.metadata.namespace === this.settings.operatorNamespace &&
      (instance.metadata.ownerReferences ?? []).some(
        (ref) =>
          ref.controller === true &&
          ref.apiVersion === BUNDLES.apiVersion &&
          ref.kind === BUNDLES.kind,
      )
    );
  }

  /** A Kubernetes Event on the object; never fails the caller. */
  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    void this.ports.events.record(object, type, reason, message);
  }

  private view<T extends KubeObject>(type: ResourceType): CacheView<Stored<T>> {
    return this.ports.cache.view<T>(type as NamespacedType);
  }
}

const kindId = (type: ResourceType): string => `${type.apiVersion}/${type.plural}`;
