import { ApiError } from '../../client/kube/api-error.js';
import type { DeleteOptions, ListOptions, ObjectList } from '../../client/kube/api-client.js';
import type { ObjectApi } from '../../operator/kube/kube-client.js';
import { ObjectClient } from '../../operator/kube/kube-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import type { CacheIndex, CacheReader, CacheView } from '../../operator/runtime/cache.js';
import type { Clock } from '../../operator/runtime/clock.js';
import type { EventSink, EventType } from '../../operator/runtime/event-recorder.js';
import type { ControllerPorts } from '../../operator/runtime/ports.js';

/**
 * In-memory fakes of a controller's ports, for unit tests of a reconcile without an apiserver.
 * The store keeps the apiserver's rules a reconcile relies on: it sets name, UID,
 * resourceVersion and creationTimestamp; a write with a stale resourceVersion and a delete whose
 * UID or resourceVersion precondition fails are conflicts (409); a PUT leaves status alone and a
 * status PUT leaves the rest alone; an object with finalizers is only marked deleted, and goes
 * once its last finalizer is removed. The cache shows the store as it is (never behind), and
 * every write is counted, so that a test can tell a pass that changed nothing. Lists take label
 * selectors (not field selectors).
 */
export class FakeApi implements ObjectApi {
  private readonly objects = new Map<string, KubeObject>();
  private version = 1;
  private uids = 0;
  /** Every write made, in order: "create Kind ns/name", "update …", "status …", "delete …". */
  readonly writes: string[] = [];

  constructor(private readonly clock: Clock) {}

  /** Stores an object as the apiserver would (a test's fixture); returns what was stored. */
  seed<T extends KubeObject>(type: ResourceType, object: T): T {
    return this.store(type, this.fill(type, structuredClone(object)));
  }

  /** What the store holds, for assertions. */
  peek<T extends KubeObject>(type: ResourceType, name: string, namespace?: string): T | undefined {
    const object = this.objects.get(storeKey(type, name, namespace));
    return object && (structuredClone(object) as T);
  }

  all<T extends KubeObject>(type: ResourceType, namespace?: string): T[] {
    const prefix =
      type.namespaced && namespace ? `${type.plural}/${namespace}/` : `${type.plural}/`;
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, object]) => structuredClone(object) as T);
  }

  async get<T extends KubeObject>(type: ResourceType, name: string, ns?: string): Promise<T> {
    await Promise.resolve();
    const found = this.peek<T>(type, name, ns);
    if (!found) throw notFound(type, name);
    return found;
  }

  async list<T extends KubeObject>(type: ResourceType, opts?: ListOptions): Promise<ObjectList<T>> {
    await Promise.resolve();
    if (opts?.fieldSelector) throw new Error('FakeApi.list: field selectors are not supported');
    const matches = labelMatcher(opts?.labelSelector ?? '');
    return {
      items: this.all<T>(type, opts?.namespace).filter((o) => matches(o.metadata?.labels ?? {})),
      resourceVersion: String(this.version),
    };
  }

  async create<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    await Promise.resolve();
    const { name = '', namespace } = object.metadata ?? {};
    if (this.objects.has(storeKey(type, name, namespace)))
      throw new ApiError(409, 'AlreadyExists', `${type.kind} "${name}" already exists`);
    this.writes.push(`create ${type.kind} ${label(type, name, namespace)}`);
    const fresh = structuredClone(object);
    delete fresh.metadata?.resourceVersion;
    delete fresh.metadata?.uid;
    return this.store(type, this.fill(type, fresh));
  }

  async update<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    const current = await this.current(type, object);
    this.writes.push(
      `update ${type.kind} ${label(type, object.metadata?.name, object.metadata?.namespace)}`,
    );
    const next = { ...structuredClone(object), status: (current as { status?: unknown }).status };
    const finalizers = next.metadata?.finalizers ?? [];
    if (current.metadata?.deletionTimestamp && finalizers.length === 0) {
      this.objects.delete(storeKey(type, current.metadata.name ?? '', current.metadata.namespace));
      return { ...next, metadata: { ...next.metadata, resourceVersion: this.bump() } };
    }
    next.metadata = {
      ...next.metadata,
      uid: current.metadata?.uid,
      creationTimestamp: current.metadata?.creationTimestamp,
      deletionTimestamp: current.metadata?.deletionTimestamp,
    };
    return this.store(type, next);
  }

  async updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    const current = await this.current(type, object);
    this.writes.push(
      `status ${type.kind} ${label(type, object.metadata?.name, object.metadata?.namespace)}`,
    );
    const status = structuredClone((object as { status?: unknown }).status);
    return this.store(type, { ...(current as T), status });
  }

  async delete(
    type: ResourceType,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<void> {
    await Promise.resolve();
    const key = storeKey(type, name, namespace);
    const current = this.objects.get(key);
    if (!current) throw notFound(type, name);
    const { uid, resourceVersion } = current.metadata ?? {};
    if (
      (options.uid && options.uid !== uid) ||
      (options.resourceVersion && options.resourceVersion !== resourceVersion)
    )
      throw new ApiError(409, 'Conflict', `Precondition failed for ${type.kind} "${name}"`);
    this.writes.push(`delete ${type.kind} ${label(type, name, namespace)}`);
    if (current.metadata?.finalizers?.length) {
      if (current.metadata.deletionTimestamp) return;
      const deletionTimestamp = new Date(this.clock.now()).toISOString();
      this.store(type, { ...current, metadata: { ...current.metadata, deletionTimestamp } });
      return;
    }
    this.objects.delete(key);
  }

  /** The stored object a write is meant for; 404 or 409 as the apiserver answers. */
  private async current(type: ResourceType, object: KubeObject): Promise<KubeObject> {
    await Promise.resolve();
    const { name = '', namespace, resourceVersion } = object.metadata ?? {};
    const current = this.objects.get(storeKey(type, name, namespace));
    if (!current) throw notFound(type, name);
    if (resourceVersion && resourceVersion !== current.metadata?.resourceVersion)
      throw new ApiError(409, 'Conflict', `the object has been modified: ${type.kind} "${name}"`);
    return current;
  }

  private fill<T extends KubeObject>(type: ResourceType, object: T): T {
    const metadata = { ...object.metadata };
    metadata.uid ??= `uid-${++this.uids}`;
    metadata.creationTimestamp ??= new Date(this.clock.now())
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    if (!type.namespaced) delete metadata.namespace;
    return { ...object, apiVersion: type.apiVersion, kind: type.kind, metadata };
  }

  private store<T extends KubeObject>(type: ResourceType, object: T): T {
    const stored = structuredClone(object);
    stored.metadata = { ...stored.metadata, resourceVersion: this.bump() };
    const { name = '', namespace } = stored.metadata;
    this.objects.set(storeKey(type, name, namespace), stored);
    return structuredClone(stored);
  }

  private bump(): string {
    this.version += 1;
    return String(this.version);
  }
}

/** A cache that reads the store itself: the state after every write, as a synced informer. */
export class FakeCache implements CacheReader {
  constructor(private readonly api: FakeApi) {}

  read<T extends KubeObject>(type: ResourceType): Promise<CacheView<never>> {
    return Promise.resolve(this.view<T>(type as never));
  }

  view<T extends KubeObject>(type: ResourceType): CacheView<never> {
    const api = this.api;
    return {
      get: (name: string, namespace?: string) => api.peek<T>(type, name, namespace) as never,
      list: (namespace?: string, filter?: (object: never) => boolean) =>
        api.all<T>(type, namespace).filter((o) => !filter || filter(o as never)) as never[],
    };
  }

  indexBy<T extends KubeObject>(
    type: ResourceType,
    values: (object: never) => string[],
  ): CacheIndex<never> {
    return {
      get: (value: string) =>
        this.api.all<T>(type).filter((o) => values(o as never).includes(value)) as never[],
    };
  }
}

export interface RecordedEvent {
  object: string;
  type: EventType;
  reason: string;
  message: string;
}

export class FakeEvents implements EventSink {
  readonly recorded: RecordedEvent[] = [];

  record(object: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const { namespace, name } = object.metadata ?? {};
    this.recorded.push({
      object: `${object.kind} ${label(undefined, name, namespace)}`,
      type,
      reason,
      message,
    });
    return Promise.resolve();
  }
}

/** A clock that moves only when the test says so; timers are never due by themselves. */
export class FakeClock implements Clock {
  constructor(private time: number) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
  setTimeout(): NodeJS.Timeout {
    throw new Error('FakeClock: a reconcile under test must not wait');
  }
  clearTimeout(): void {}
}

export interface FakePorts extends ControllerPorts {
  api: FakeApi;
  events: FakeEvents;
  clock: FakeClock;
}

export function fakePorts(start = Date.parse('2026-12-01T12:00:00Z')): FakePorts {
  const clock = new FakeClock(start);
  const api = new FakeApi(clock);
  return {
    api,
    client: new ObjectClient(api),
    cache: new FakeCache(api),
    events: new FakeEvents(),
    clock,
  };
}

const storeKey = (type: ResourceType, name: string, namespace?: string): string =>
  `${type.plural}/${type.namespaced ? (namespace ?? '') : ''}/${name}`;

const label = (type: ResourceType | undefined, name?: string, namespace?: string): string =>
  type && !type.namespaced ? (name ?? '') : `${namespace ?? ''}/${name ?? ''}`;

/**
 * A label selector's test, with the apiserver's grammar: requirements joined by commas, each
 * `key`, `!key`, `key=value`, `key==value`, `key!=value`, `key in (a,b)` or `key notin (a,b)`.
 */
function labelMatcher(selector: string): (labels: Record<string, string>) => boolean {
  const requirements = selector
    .split(/,(?![^(]*\))/)
    .map((r) => r.trim())
    .filter(Boolean)
    .map((requirement): ((labels: Record<string, string>) => boolean) => {
      const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(requirement);
      if (set) {
        const [, key = '', op, list = ''] = set;
        const values = list.split(',').map((v) => v.trim());
        return (labels) =>
          op === 'in'
            ? key in labels && values.includes(labels[key]!)
            : !(key in labels) || !values.includes(labels[key]!);
      }
      const pair = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(requirement);
      if (pair) {
        const [, key = '', op, value] = pair;
        return (labels) => (op === '!=' ? labels[key] !== value : labels[key] === value);
      }
      if (requirement.startsWith('!')) return (labels) => !(requirement.slice(1) in labels);
      return (labels) => requirement in labels;
    });
  return (labels) => requirements.every((matches) => matches(labels));
}

const notFound = (type: ResourceType, name: string): ApiError =>
  new ApiError(404, 'NotFound', `${type.kind} "${name}" not found`);
