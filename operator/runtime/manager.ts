import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { ObjectClient } from '../kube/kube-client.js';
import type { KubeObject } from '../kube/objects.js';
import { objectKey } from '../kube/objects.js';
import type { NamespacedType, ResourceType } from '../../client/kube/resource-type.js';
import type { BackoffPolicy } from './backoff.js';
import type { Clock } from './clock.js';
import { sleep, systemClock } from './clock.js';
import type { Reconciler } from './controller.js';
import { Controller } from './controller.js';
import { EventRecorder } from './event-recorder.js';
import type { ListenAddress } from './http-endpoints.js';
import { HttpEndpoints } from './http-endpoints.js';
import type { Informer } from './informer.js';
import { InformerCache } from './informer-cache.js';
import { LeaderElector } from './leader-election.js';
import type { Logger, LogLevel } from './logger.js';
import { createLogger } from './logger.js';
import { RuntimeMetrics } from './metrics.js';
import type { SecureMetricsSettings } from './metrics-endpoint.js';
import { listenMetrics } from './metrics-endpoint.js';
import { ownerKeys } from './owner-keys.js';
import type { ControllerPorts } from './ports.js';

/** How long a manager that lost its lease waits for work under way before it reports stopped. */
const LOST_LEADERSHIP_STOP_GRACE_MS = 2000;

/** A kind a controller watches besides its own, with how its objects map to the controller's keys. */
export interface WatchSpec {
  type: ResourceType;
  /** Keys for an object's add, update (old and new state) and delete. */
  map?: (object: KubeObject) => string[];
  /**
   * Keys for a change, when which change matters (previous is undefined for an add, current for
   * a delete). Takes precedence over `map`; lets a controller skip the changes that cannot affect it.
   */
  mapChange?: (previous: KubeObject | undefined, current: KubeObject | undefined) => string[];
  /**
   * Watch only the objects' names in this one namespace (a metadata-only informer of its own,
   * not the kind's cache): for kinds the cache holds only some of, such as Secrets.
   */
  metadataOnlyIn?: string;
}

export interface ControllerRegistration {
  name: string;
  /** The root kind: its own events enqueue its own key. */
  forType: ResourceType;
  /** Kinds whose objects carry an owner reference to the root kind. */
  owns?: ResourceType[];
  watches?: WatchSpec[];
  reconcile: Reconciler;
  /**
   * Events wait this long (ms) before they queue their key, so that a burst of them gives one
   * pass: for controllers that summarise many objects and write a status each pass.
   */
  coalesceMs?: number;
  /**
   * Keys to reconcile once the controller starts, whether or not an object of theirs exists:
   * for a controller that keeps objects of its own making (an event of theirs brings the rest).
   */
  startKeys?: readonly string[];
}

/** A server beside the controllers (the token exchange): started with the endpoints, stopped with them. */
export interface ManagedServer {
  start: () => Promise<{ port: number; stop: () => Promise<void> }>;
}

/** Leader election on a coordination.k8s.io/v1 Lease (see leader-election.ts). */
export interface LeaderElectionSettings {
  /** Where the Lease lives. */
  namespace: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** How the manager runs; nothing in it is about what its controllers do. */
export interface RuntimeOptions {
  /** This process: the leader-election holder's identity and the Events' reporting instance. */
  identity: string;
  logLevel: LogLevel;
  /** Concurrent reconciles by controller name; a controller not named runs one. */
  workers: Readonly<Record<string, number>>;
  /** Cache namespaced kinds of this namespace only; all namespaces when unset. */
  namespace?: string;
  /** Where /metrics listens; not served when unset. */
  metricsAddress?: ListenAddress;
  /** /metrics over HTTPS to authenticated, authorized clients; plain HTTP to anyone when unset. */
  secureMetrics?: SecureMetricsSettings;
  /** Where /healthz and /readyz listen; not served when unset. */
  probeAddress?: ListenAddress;
  /** Controllers run only while this process holds the Lease; always, when unset. */
  leaderElection?: LeaderElectionSettings;
}

export interface ManagerOptions {
  runtime: RuntimeOptions;
  /** Where the apiserver is and how to authenticate (client-node's KubeConfig will do). */
  kubeConfig: ClusterAccess;
  clock?: Clock;
  logger?: Logger;
  watchBackoff?: BackoffPolicy;
  retryBackoff?: BackoffPolicy;
  /** Shorter server-side watch timeouts make watch restarts observable in tests. */
  watchTimeoutSeconds?: number;
}

/**
 * Runs controllers: shared informer caches per kind, a work queue per controller, leader election
 * (controllers run only on the leader; losing the lease stops the manager), probes, metrics and an
 * Events recorder. Controllers act through `ports`.
 */
export class Manager {
  /** The raw API client under the caches, Events and ports; controllers act through `ports`. */
  private readonly client: ApiClient;
  readonly metrics = new RuntimeMetrics();
  readonly logger: Logger;
  /** The API, caches, Events and clock, as controllers get them. */
  readonly ports: ControllerPorts;
  private readonly events: EventRecorder;
  private readonly clock: Clock;
  private readonly cache: InformerCache;
  private readonly controllers: Controller[] = [];
  private readonly startKeys = new Map<Controller, readonly string[]>();
  private readonly endpoints: HttpEndpoints[] = [];
  private readonly servers: ManagedServer[] = [];
  private readonly running: { port: number; stop: () => Promise<void> }[] = [];
  /** Stops what the metrics endpoint runs besides its server (certificate reload, reviews). */
  private stopMetrics: () => Promise<void> = () => Promise.resolve();
  private readonly stopController = new AbortController();
  private readonly elector: LeaderElector | undefined;
  /** The elector's own: its requests are cut off at the renew deadline (see ApiClientOptions). */
  private readonly electionClient: ApiClient | undefined;
  private leading = false;
  private cachesSynced = false;
  private finish: (reason: string) => void = () => undefined;
  /** Resolves with the reason once the manager has stopped (asked to, or leadership lost). */
  readonly stopped: Promise<string>;

  constructor(private readonly options: ManagerOptions) {
    const { runtime } = options;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? createLogger(runtime.logLevel);
    this.client = new ApiClient(options.kubeConfig);
    this.events = new EventRecorder(this.client, this.clock, this.logger, runtime.identity);
    this.cache = new InformerCache({
      client: this.client,
      namespace: runtime.namespace,
      logger: this.logger,
      metrics: this.metrics,
      clock: this.clock,
      watchBackoff: options.watchBackoff,
      watchTimeoutSeconds: options.watchTimeoutSeconds,
    });
    this.ports = {
      client: new ObjectClient(this.client),
      cache: this.cache,
      events: this.events,
      clock: this.clock,
    };
    this.stopped = new Promise((resolve) => (this.finish = resolve));
    const election = runtime.leaderElection;
    if (election) {
      this.electionClient = new ApiClient(options.kubeConfig, { allowH2: false });
      this.elector = new LeaderElector({
        client: this.electionClient,
        namespace: election.namespace,
        name: election.leaseName,
        identity: runtime.identity,
        leaseDurationMs: election.leaseDurationMs,
        renewDeadlineMs: election.renewDeadlineMs,
        retryPeriodMs: election.retryPeriodMs,
        clock: this.clock,
        logger: this.logger,
      });
    }
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** The caches hold the cluster's objects and the controllers run (never on a standby). */
  get synced(): boolean {
    return this.cachesSynced && !this.stopController.signal.aborted;
  }

  /**
   * Caches only the objects of a kind that match `labelSelector` (the others are read live when
   * needed). Call before anything uses the kind's cache.
   */
  restrictCache(type: ResourceType, labelSelector: string): void {
    this.cache.restrict(type, labelSelector);
  }

  /**
   * The shared cache of a kind (all namespaces, or the manager's one), created on first use and
   * started at once when the manager runs already. For the runtime's own tests and benchmarks;
   * product controllers read `ports.cache`.
   */
  informer<T extends KubeObject>(type: ResourceType): Informer<T> {
    return this.cache.informer<T>(type);
  }

  addController(registration: ControllerRegistration): Controller {
    const workers = this.options.runtime.workers[registration.name] ?? 1;
    this.metrics.initController(registration.name, workers);
    const controller = new Controller({
      name: registration.name,
      reconcile: registration.reconcile,
      workers,
      logger: this.logger,
      metrics: this.metrics,
      clock: this.clock,
      retryBackoff: this.options.retryBackoff,
      coalesceMs: registration.coalesceMs,
    });
    const enqueueAll = (keys: string[]): void => keys.forEach((key) => controller.enqueue(key));
    const informerOf = (spec: Pick<WatchSpec, 'type' | 'metadataOnlyIn'>): Informer<KubeObject> =>
      spec.metadataOnlyIn && spec.type.namespaced
        ? this.cache.metadataInformer(spec.type as NamespacedType, spec.metadataOnlyIn)
        : this.informer(spec.type);
    const watch = (
      spec: Pick<WatchSpec, 'type' | 'metadataOnlyIn'>,
      map: (object: KubeObject) => string[],
    ): void =>
      informerOf(spec).addHandlers({
        onAdd: (object) => enqueueAll(map(object)),
        onUpdate: (previous, current) =>
          enqueueAll([...new Set([...map(previous), ...map(current)])]),
        onDelete: (object) => enqueueAll(map(object)),
      });
    watch({ type: registration.forType }, (object) => [objectKey(object)]);
    for (const owned of registration.owns ?? [])
      watch({ type: owned }, (object) => ownerKeys(object, registration.forType));
    for (const spec of registration.watches ?? []) {
      const mapChange = spec.mapChange;
      if (mapChange) {
        informerOf(spec).addHandlers({
          onAdd: (object) => enqueueAll(mapChange(undefined, object)),
          onUpdate: (previous, current) => enqueueAll(mapChange(previous, current)),
          onDelete: (object) => enqueueAll(mapChange(object, undefined)),
        });
      } else if (spec.map) {
        watch(spec, spec.map);
      }
    }
    this.controllers.push(controller);
    this.startKeys.set(controller, registration.startKeys ?? []);
    return controller;
  }

  /** Adds a server to start with the probes and metrics; call before start(). */
  addServer(server: ManagedServer): void {
    this.servers.push(server);
  }

  /** The ports of the servers added with addServer, in order, once started. */
  get serverPorts(): number[] {
    return this.running.map((server) => server.port);
  }

  /** Serves probes and metrics, then runs the controllers (after winning the election, if enabled). */
  async start(): Promise<void> {
    await this.listen();
    this.metrics.leader.set(0);
    void this.runControllers().catch((error: unknown) => {
      this.logger.error({ err: error }, 'The manager failed');
      void this.stop(`the manager failed: ${String(error)}`);
    });
  }

  /** Stops controllers and caches, releases the lease, closes the endpoints. Idempotent. */
  async stop(reason = 'stop requested'): Promise<void> {
    if (this.stopController.signal.aborted) return;
    this.stopController.abort();
    this.logger.info({ reason }, 'Stopping the manager');
    await Promise.all(this.controllers.map((c) => c.stop()));
    await this.cache.stop();
    if (this.leading) await this.elector?.release();
    this.leading = false;
    this.metrics.leader.set(0);
    await Promise.all(this.endpoints.map((e) => e.close()));
    await Promise.all(this.running.map((server) => server.stop()));
    await Promise.all([this.client.close(), this.electionClient?.close(), this.stopMetrics()]);
    this.finish(reason);
  }

  /**
   * Leadership is lost: nothing more goes out (the requests of reconciles under way fail from
   * now on), the lease is not touched again, and the manager stops. A standby may take over once
   * the lease expires, so the stop waits at most a short grace for work under way.
   */
  private async lose(reason: string): Promise<void> {
    this.leading = false;
    this.client.stopSending(reason);
    this.electionClient?.stopSending(reason);
    this.logger.error({ reason }, 'Lost leadership; stopping the controllers');
    await Promise.race([this.stop(reason), sleep(this.clock, LOST_LEADERSHIP_STOP_GRACE_MS)]);
    this.finish(reason);
  }

  /** Ports the endpoints listen on (useful when configured with port 0). */
  get endpointPorts(): number[] {
    return this.endpoints.map((e) => e.port);
  }

  private async runControllers(): Promise<void> {
    const signal = this.stopController.signal;
    if (this.elector) {
      if (!(await this.elector.acquire(signal))) return;
      this.leading = true;
      this.metrics.leader.set(1);
      void this.elector.holdUntilLost(signal).then((lost) => {
        if (lost) void this.lose(`lost leadership: ${lost}`);
      });
    }
    await Promise.race([this.cache.start(), this.stopped]);
    if (signal.aborted) return;
    this.cachesSynced = true;
    this.logger.info({ informers: this.cache.names }, 'Caches synced; starting controllers');
    for (const controller of this.controllers) {
      controller.start();
      for (const key of this.startKeys.get(controller) ?? []) controller.enqueue(key);
    }
  }

  private async listen(): Promise<void> {
    const { metricsAddress, probeAddress } = this.options.runtime;
    if (probeAddress) {
      this.endpoints.push(
        await HttpEndpoints.listen(probeAddress, {
          '/healthz': () => Promise.resolve({ status: 200, body: 'ok\n' }),
          '/readyz': () => Promise.resolve(this.readiness()),
        }),
      );
    }
    if (metricsAddress) {
      const { endpoint, stop } = await listenMetrics(
        metricsAddress,
        this.metrics.registry,
        this.options.runtime.secureMetrics,
        { access: this.options.kubeConfig, clock: this.clock, logger: this.logger },
      );
      this.endpoints.push(endpoint);
      this.stopMetrics = stop;
    }
    for (const server of this.servers) this.running.push(await server.start());
  }

  /** Ready once the caches are synced; a standby is ready too (it is waiting, by design). */
  private readiness(): { status: number; body: string } {
    if (this.stopController.signal.aborted) return { status: 503, body: 'stopping\n' };
    if (this.elector && !this.leading) return { status: 200, body: 'ok (standby)\n' };
    return this.cachesSynced
      ? { status: 200, body: 'ok\n' }
      : { status: 503, body: 'caches not synced\n' };
  }
}
