import type https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, Client, Pool, fetch } from 'undici';
import { ApiError } from './api-error.js';
import type { KubeObject } from './objects.js';
import type { ResourceType } from './resource-type.js';
import { collectionPath, objectPath } from './resource-type.js';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  /**
   * Only each object's metadata (the apiserver's PartialObjectMetadata): a Secret's data never
   * leaves the apiserver.
   */
  metadataOnly?: boolean;
}

export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  /** The apiserver ends the stream after this long; the caller starts a new one. */
  timeoutSeconds?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

export type PatchType = 'merge' | 'json' | 'apply';

/** Per request: `signal` ends it (and its waits on 429 answers) early, with an AbortError. */
export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ApiClientOptions {
  /**
   * false: HTTP/1.1 only. Over HTTP/1.1 a request cut off before its response began closes its
   * own connection; over HTTP/2 that can leave a stream nobody listens to (see watch()).
   */
  allowH2?: boolean;
  /** At most this many connections to the apiserver (unbounded when unset). */
  connections?: number;
  /**
   * How often a request answered 429 is sent (10 by default, honouring Retry-After between);
   * 1 for requests whose caller answers a throttled apiserver itself rather than wait.
   */
  maxThrottledAttempts?: number;
}

/** What send() throws once stopSending() was called. */
export class ClientStoppedError extends Error {
  override name = 'ClientStoppedError';
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface DeleteOptions extends RequestOptions {
  /** Delete only this exact object (not a new one with the same name). */
  uid?: string;
  resourceVersion?: string;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** 0 deletes a pod at once (what a kubelet does once its containers have stopped). */
  gracePeriodSeconds?: number;
}

interface Status {
  kind?: string;
  reason?: string;
  message?: string;
  code?: number;
}

/**
 * Where the apiserver is and how to authenticate to it. client-node's KubeConfig is one; the
 * Action brings a small one of its own so that its bundle does not carry all of client-node.
 */
export interface ClusterAccess {
  getCurrentCluster(): { server: string } | null;
  /** Sets TLS material and auth headers; called for every request (tokens may be refreshed). */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

/**
 * A small JSON client for any resource type, on client-node's authentication and TLS set-up.
 * Objects stay plain JSON (unlike client-node's model classes), so what we read is exactly what
 * the apiserver sent and what we write is exactly what we built; subresources and every patch
 * type are supported.
 */
export class ApiClient {
  private readonly agents: { requests?: Agent; watches?: Agent } = {};
  private stopped: string | undefined;

  constructor(
    private readonly kubeConfig: ClusterAccess,
    private readonly options: ApiClientOptions = {},
  ) {}

  /**
   * From now on every request fails at once with a ClientStoppedError, retries of requests under
   * way included; requests already on the wire finish (cutting them off would not take them back).
   * For a leader that lost its lease: it must send nothing more.
   */
  stopSending(reason: string): void {
    this.stopped ??= reason;
  }

  /**
   * Connection pools for the client's lifetime, made from the kubeconfig's TLS settings on first
   * use (client-node builds a new agent, and so a new TLS connection, for every request). Watch
   * streams get a pool of their own: on one HTTP/2 connection, their steady flow of events would
   * hold up the responses to writes behind them.
   */
  private connectionPool(tls: https.RequestOptions, purpose: 'requests' | 'watches'): Agent {
    this.agents[purpose] ??= new Agent({
      ...(this.options.allowH2 === false ? { allowH2: false } : {}),
      connect: {
        ca: tls.ca,
        cert: tls.cert,
        key: tls.key,
        servername: tls.servername,
        ...(tls.rejectUnauthorized === undefined
          ? {}
          : { rejectUnauthorized: tls.rejectUnauthorized }),
      },
      factory: (origin, options) =>
        new Pool(origin, {
          ...options,
          ...(this.options.connections ? { connections: this.options.connections } : {}),
          factory: (url, clientOptions) => quiet(new Client(url, clientOptions)),
        }),
    });
    return this.agents[purpose];
  }

  /**
   * Closes the pooled connections. Requests under way (an Event being recorded, a status write)
   * may finish first; what is still open after a short grace, such as a watch nobody aborted,
   * is cut off. Destroying at once failed those requests while their callers had already moved on.
   */
  async close(): Promise<void> {
    const agents = [this.agents.requests, this.agents.watches];
    delete this.agents.requests;
    delete this.agents.watches;
    await Promise.all(
      agents.map(async (agent) => {
        if (!agent) return;
        // A close overtaken by the destroy below settles with it: nothing to report then.
        const closed = agent.close().then(
          () => 'closed' as const,
          () => 'closed' as const,
        );
        const grace = delay(CLOSE_GRACE_MS, 'late' as const, { ref: false });
        if ((await Promise.race([closed, grace])) === 'late') await agent.destroy();
      }),
    );
  }

  get server(): string {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('The kubeconfig has no current cluster');
    return cluster.server;
  }

  async get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    options: RequestOptions = {},
  ): Promise<T> {
    return this.request<T>('GET', objectPath(type, name, namespace), undefined, undefined, options);
  }

  /** A discovery document: `/api/v1`, `/apis`, `/apis/<group>/<version>`. */
  async discover<T>(path: `/api${string}`): Promise<T> {
    return this.request<T>('GET', path);
  }

  async list<T extends KubeObject>(
    type: ResourceType,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const list = await this.request<{
      items: T[] | null;
      metadata: { resourceVersion: string; continue?: string };
    }>('GET', collectionPath(type, options.namespace), listQuery(options), undefined, {
      accept: options.metadataOnly ? METADATA_LIST : undefined,
    });
    // Lists omit each item's apiVersion and kind; restore them so items look like watched objects.
    // An empty metadata-only list has no items at all (null).
    const items = (list.items ?? []).map((item) => ({
      apiVersion: type.apiVersion,
      kind: type.kind,
      ...item,
    }));
    return {
      items,
      resourceVersion: list.metadata.resourceVersion,
      continue: list.metadata.continue || undefined,
    };
  }

  async create<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: RequestOptions & { dryRun?: boolean } = {},
  ): Promise<T> {
    const query = options.dryRun ? { dryRun: 'All' } : undefined;
    const path = collectionPath(type, object.metadata?.namespace);
    return this.request<T>('POST', path, query, object, { signal: options.signal });
  }

  /** PUT of the whole object; conflicts (409) when its resourceVersion is stale. */
  async update<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: RequestOptions = {},
  ): Promise<T> {
    const { name, namespace } = object.metadata ?? {};
    const path = objectPath(type, name ?? '', namespace);
    return this.request<T>('PUT', path, undefined, object, options);
  }

  /** PUT of the status subresource; only status changes are kept. */
  async updateStatus<T extends KubeObject>(type: ResourceType, object: T): Promise<T> {
    const { name, namespace } = object.metadata ?? {};
    return this.request<T>(
      'PUT',
      objectPath(type, name ?? '', namespace, 'status'),
      undefined,
      object,
    );
  }

  async patch<T extends KubeObject>(
    type: ResourceType,
    target: { name: string; namespace?: string; subresource?: string },
    patch: unknown,
    options: { patchType?: PatchType; fieldManager?: string; force?: boolean } = {},
  ): Promise<T> {
    const patchType = options.patchType ?? 'merge';
    const query: Record<string, string> = {};
    if (options.fieldManager) query.fieldManager = options.fieldManager;
    if (options.force) query.force = 'true';
    return this.request<T>(
      'PATCH',
      objectPath(type, target.name, target.namespace, target.subresource),
      query,
      patch,
      {
        contentType: PATCH_CONTENT_TYPES[patchType],
      },
    );
  }

  async delete(
    type: ResourceType,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<void> {
    const preconditions =
      options.uid || options.resourceVersion
        ? { uid: options.uid, resourceVersion: options.resourceVersion }
        : undefined;
    const body =
      preconditions || options.propagationPolicy || options.gracePeriodSeconds !== undefined
        ? {
            preconditions,
            propagationPolicy: options.propagationPolicy,
            gracePeriodSeconds: options.gracePeriodSeconds,
          }
        : undefined;
    await this.request<unknown>('DELETE', objectPath(type, name, namespace), undefined, body, {
      signal: options.signal,
    });
  }

  /**
   * The tail of a container's log (pods/log: `tailLines`, `limitBytes`), as text. The apiserver
   * asks the pod's kubelet for it; a pod on no node, or a kubelet that does not answer, fails.
   */
  async podLog(
    namespace: string,
    pod: string,
    options: { tailLines: number; limitBytes: number; container?: string },
  ): Promise<string> {
    const query: Record<string, string> = {
      tailLines: String(options.tailLines),
      limitBytes: String(options.limitBytes),
    };
    if (options.container) query.container = options.container;
    const path = objectPath(PODS_TYPE, pod, namespace, 'log');
    const response = await this.send('GET', path, query, undefined, { accept: 'text/plain' });
    return response.text();
  }

  /**
   * Streams watch events until the server ends the stream (resolves) or it fails (rejects: an
   * ApiError for HTTP and in-stream errors such as 410 Gone, or a network error). Abort `signal` to stop.
   */
  async watch<T extends KubeObject>(
    type: ResourceType,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const query: Record<string, string> = {
      ...listQuery(options),
      watch: 'true',
      allowWatchBookmarks: 'true',
      resourceVersion: options.resourceVersion,
    };
    if (options.timeoutSeconds) query.timeoutSeconds = String(options.timeoutSeconds);
    // A stop is passed on to the request only once its response has begun (or after a grace,
    // should it never begin). Over HTTP/2, a request cut off while its response headers are on
    // the way leaves a stream that the server's late headers bring back without any 'error'
    // listener; closing the connection then destroys it with an error that ends the process.
    if (signal.aborted) return;
    const request = new AbortController();
    let responding = false;
    const stop = (): void => {
      if (responding) request.abort(signal.reason);
      else setTimeout(() => request.abort(signal.reason), CLOSE_GRACE_MS).unref();
    };
    signal.addEventListener('abort', stop, { once: true });
    try {
      const response = await this.send(
        'GET',
        collectionPath(type, options.namespace),
        query,
        undefined,
        {
          signal: request.signal,
          stream: true,
          accept: options.metadataOnly ? METADATA_OBJECT : undefined,
        },
      );
      responding = true;
      if (signal.aborted) request.abort(signal.reason);
      await readWatchEvents(response, onEvent);
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  private async request<T>(
    method: string,
    path: string,
    query?: Record<string, string>,
    body?: unknown,
    options: { contentType?: string; signal?: AbortSignal; accept?: string } = {},
  ): Promise<T> {
    const response = await this.send(method, path, query, body, options);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private async send(
    method: string,
    path: string,
    query: Record<string, string> | undefined,
    body: unknown,
    options: { contentType?: string; signal?: AbortSignal; stream?: boolean; accept?: string },
  ): Promise<Awaited<ReturnType<typeof fetch>>> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    const { tls, headers } = await this.requestHeaders(body, options);
    for (let attempt = 1; ; attempt++) {
      if (this.stopped) throw new ClientStoppedError(`${method} ${path} not sent: ${this.stopped}`);
      const response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.connectionPool(tls, options.stream ? 'watches' : 'requests'),
        signal: options.signal,
      });
      if (response.ok) return response;
      // 429 is the apiserver asking to come back later (priority and fairness, or a watch cache
      // that is still initialising); like client-go, honour its Retry-After a few times.
      const maxAttempts = this.options.maxThrottledAttempts ?? MAX_THROTTLED_ATTEMPTS;
      if (response.status !== 429 || attempt >= maxAttempts)
        throw await toApiError(response, method, path);
      await response.body?.cancel();
      const retryAfterSeconds = Number(response.headers.get('retry-after')) || 1;
      await delay(Math.min(retryAfterSeconds, 10) * 1000, undefined, { signal: options.signal });
    }
  }

  /** The TLS options and headers of one request; credentials are read each time (tokens refresh). */
  private async requestHeaders(
    body: unknown,
    options: { contentType?: string; accept?: string },
  ): Promise<{ tls: https.RequestOptions; headers: Record<string, string> }> {
    const tls: https.RequestOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(tls);
    const headers: Record<string, string> = {
      ...authHeaders(tls),
      Accept: options.accept ?? 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
    return { tls, headers };
  }
}

const MAX_THROTTLED_ATTEMPTS = 10;
const PODS_TYPE = { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true };
/** The apiserver's metadata-only answers (what client-go's metadata informers ask for). */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';

/** Watch events, one JSON object per line, as they arrive until the stream ends. */
async function readWatchEvents<T extends KubeObject>(
  response: Awaited<ReturnType<typeof fetch>>,
  onEvent: (event: WatchEvent<T>) => void,
): Promise<void> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) dispatchWatchLine<T>(line, onEvent);
    }
  }
}

/**
 * A connection that does not take the process down with it: when a request's handler fails while
 * its connection is being torn down (a pool closing under an aborted watch), undici reports that
 * as an 'error' event of the connection, which without a listener is an uncaught exception. The
 * request has already failed to its caller by then.
 */
function quiet(client: Client): Client {
  // 'error' is not among the typed events of a Client, but it is an EventEmitter like any other.
  (client as unknown as NodeJS.EventEmitter).on('error', () => undefined);
  return client;
}
/** How long close() lets requests under way finish before it cuts them off. */
const CLOSE_GRACE_MS = 2000;

function authHeaders(tls: https.RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(tls.headers ?? {}))
    if (value !== undefined) headers[key] = String(value);
  if (tls.auth) headers.Authorization = `Basic ${Buffer.from(tls.auth).toString('base64')}`;
  return headers;
}

function listQuery(options: ListOptions): Record<string, string> {
  const query: Record<string, string> = {};
  if (options.labelSelector) query.labelSelector = options.labelSelector;
  if (options.fieldSelector) query.fieldSelector = options.fieldSelector;
  if (options.limit) query.limit = String(options.limit);
  if (options.continue) query.continue = options.continue;
  return query;
}

function dispatchWatchLine<T>(line: string, onEvent: (event: WatchEvent<T>) => void): void {
  const event = JSON.parse(line) as { type: string; object: T & Status };
  if (event.type === 'ERROR') {
    const status = event.object;
    throw new ApiError(
      status.code ?? 500,
      status.reason ?? 'WatchError',
      status.message ?? 'watch error',
    );
  }
  onEvent(event as WatchEvent<T>);
}

async function toApiError(
  response: { status: number; text(): Promise<string> },
  method: string,
  path: string,
): Promise<ApiError> {
  const text = await response.text();
  let status: Status;
  try {
    status = JSON.parse(text) as Status;
  } catch {
    status = { message: text };
  }
  return new ApiError(
    response.status,
    status.reason ?? 'Unknown',
    status.message || `${method} ${path}: HTTP ${response.status}`,
    method,
    path,
  );
}
