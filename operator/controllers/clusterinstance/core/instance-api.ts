import type { Registry } from 'prom-client';
import type { DeleteOptions, ListOptions } from '../../../kube/api-client.js';
import { isAlreadyExists, isNotFound } from '../../../kube/api-error.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { ResourceType } from '../../../kube/resource-type.js';
import type { EventType } from '../../../runtime/event-recorder.js';
import type { Manager } from '../../../runtime/manager.js';
import type { NamespacePolicy } from '../../namespace-policy.js';
import { namespacePolicy } from '../../namespace-policy.js';

/** What the instance engine needs of the operator's settings. */
export interface InstanceSettings {
  crcAgentImage: string;
  /** The shared ClusterRole the crc-agent accounts are bound to. */
  crcAgentClusterRole: string;
}

/**
 * Every API access of the instance engine, in one place: reads from the shared caches, live
 * reads and writes, Events, the clock and the settings. Nothing else in clusterinstance/ talks
 * to the Manager, so moving the engine onto narrower ports changes this file only.
 *
 * Caches exist for the kinds the instance controller watches; everything else is read live.
 */
export class InstanceApi {
  /** The kinds the instance controller watches, by `apiVersion/plural`; set at registration. */
  private watched = new Set<string>();

  constructor(private readonly manager: Manager) {}

  /**
   * Limits cache reads to the kinds the controller watches. Reading another kind from the cache
   * would start a cluster-wide watch of it that the operator's role may not allow (it may create
   * and get ServiceAccounts, not list them); such reads come back empty and callers read live.
   */
  cacheOnly(types: readonly ResourceType[]): void {
    this.watched = new Set(types.map(kindId));
  }

  get settings(): InstanceSettings {
    return this.manager.config;
  }

  get metricsRegistry(): Registry {
    return this.manager.metrics.registry;
  }

  now(): number {
    return this.manager.clock.now();
  }

  /** From the cache, by key ("namespace/name", or "name" when cluster-scoped). */
  cached<T extends KubeObject>(type: ResourceType, key: string): T | undefined {
    if (!this.watched.has(kindId(type))) return undefined;
    return this.manager.informer<T>(type).get(key);
  }

  cachedList<T extends KubeObject>(type: ResourceType, filter?: (object: T) => boolean): T[] {
    if (!this.watched.has(kindId(type))) return [];
    return this.manager.informer<T>(type).list(filter);
  }

  /** A live read; undefined when it does not exist. The object carries its apiVersion and kind. */
  async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    try {
      const object = await this.manager.client.get<T>(
        type,
        name,
        type.namespaced ? namespace : undefined,
      );
      return { apiVersion: type.apiVersion, kind: type.kind, ...object };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list<T extends KubeObject>(type: ResourceType, options: ListOptions): Promise<T[]> {
    return (await this.manager.client.list<T>(type, options)).items;
  }

  create<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    return this.manager.client.create<T>(type, object);
  }

  /** Creates the object unless one of its name exists; true when this call created it. */
  async createIfMissing(type: ResourceType, object: KubeObject): Promise<boolean> {
    try {
      await this.manager.client.create(type, object);
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
    }
  }

  update<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    return this.manager.client.update<T>(type, object);
  }

  updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    return this.manager.client.updateStatus<T>(type, object);
  }

  /** Deletes; an object that is gone already is fine. */
  async delete(
    type: ResourceType,
    name: string,
    namespace: string | undefined,
    options: DeleteOptions = {},
  ): Promise<void> {
    try {
      await this.manager.client.delete(type, name, namespace, options);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** The namespace opt-in (spec §2.5), from the Namespace cache, else live. */
  namespacePolicy(namespace: string): Promise<NamespacePolicy> {
    return namespacePolicy(this.manager, namespace);
  }

  /** A Kubernetes Event on the object; never fails the caller. */
  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    void this.manager.events.record(object, type, reason, message);
  }
}

const kindId = (type: ResourceType): string => `${type.apiVersion}/${type.plural}`;
