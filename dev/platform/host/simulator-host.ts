import { pino } from 'pino';
import type { Logger } from 'pino';
import type { ClusterAccess } from '../../../client/kube/api-client.js';
import { ApiClient } from '../../../client/kube/api-client.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import { objectKey } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import { typeName } from '../../../client/kube/resource-type.js';
import type { BackoffPolicy } from '../../../operator/runtime/backoff.js';
import { Informer } from '../../../operator/runtime/informer.js';
import { RuntimeMetrics } from '../../../operator/runtime/metrics.js';
import { ownerKeys } from '../../../operator/runtime/owner-keys.js';
import type { SimulatedControllerSpec } from './simulated-controller.js';
import { SimulatedController } from './simulated-controller.js';

/** Workers per simulated controller: passes of different objects run side by side. */
const WORKERS = 2;
/** Between failed lists and watches: the simulation recovers as fast as the operator it plays against. */
export const PLATFORM_WATCH_BACKOFF: BackoffPolicy = { baseMs: 50, maxMs: 1000, jitter: 0.2 };
/** How long the informers of a host (or one platform informer) may take to list their kinds. */
export const PLATFORM_SYNC_TIMEOUT_MS = 60_000;

/** Quiet unless PLATFORM_TEST_LOG_LEVEL asks for the simulation's own log (on stderr). */
export const platformLogger = (): Logger =>
  pino({ level: process.env.PLATFORM_TEST_LOG_LEVEL ?? 'silent' }, process.stderr);

/** Resolves once every informer has listed its kind; fails past the deadline, naming those that have not. */
export async function syncedWithin(
  informers: readonly Pick<Informer<KubeObject>, 'synced' | 'hasSynced' | 'name'>[],
  timeoutMs = PLATFORM_SYNC_TIMEOUT_MS,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const waiting = informers.filter((i) => !i.hasSynced).map((i) => i.name);
      reject(
        new Error(
          `the simulated platform's watches of ${waiting.join(', ')} did not list in ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
  });
  try {
    await Promise.race([Promise.all(informers.map((i) => i.synced)), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface SimulatorHostOptions {
  /** Per-key backoff of failed passes (the work queue's default when unset). */
  retryBackoff?: BackoffPolicy;
}

/**
 * Where simulated platform controllers run: one informer per kind (all namespaces) shared by the
 * host's controllers, a work queue per controller, and an API client of its own. It stands on the
 * runtime's generic parts (Informer, WorkQueue), never on the operator's Manager or
 * configuration, so that a change to the product's runtime does not move the world the product is
 * tested against. Controllers start once every informer has listed its kind.
 */
export class SimulatorHost {
  /** Simulated controllers act as the real ones do: patches, and writes of objects they did not read typed. */
  readonly client: ApiClient;
  private readonly informers = new Map<string, Informer<KubeObject>>();
  private readonly controllers: SimulatedController[] = [];
  private readonly metrics = new RuntimeMetrics();
  private readonly logger = platformLogger();
  private running = false;

  constructor(
    kubeConfig: ClusterAccess,
    private readonly options: SimulatorHostOptions = {},
  ) {
    this.client = new ApiClient(kubeConfig);
  }

  /** The host's cache of a kind, made on first use; started at once when the host runs already. */
  informer<T extends KubeObject>(type: ResourceType): Informer<T> {
    const id = typeName(type);
    let informer = this.informers.get(id);
    if (!informer) {
      informer = new Informer<KubeObject>({
        type,
        client: this.client,
        logger: this.logger,
        metrics: this.metrics,
        backoff: PLATFORM_WATCH_BACKOFF,
      });
      this.informers.set(id, informer);
      if (this.running) informer.start();
    }
    return informer as Informer<T>;
  }

  addController(spec: SimulatedControllerSpec): SimulatedController {
    const controller = new SimulatedController(spec, {
      workers: WORKERS,
      retryBackoff: this.options.retryBackoff,
      logger: this.logger,
    });
    const watch = (type: ResourceType, map: (object: KubeObject) => string[]): void => {
      const enqueue = (keys: Iterable<string>): void => {
        for (const key of keys) controller.enqueue(key);
      };
      this.informer(type).addHandlers({
        onAdd: (object) => enqueue(map(object)),
        onUpdate: (previous, current) => enqueue(new Set([...map(previous), ...map(current)])),
        onDelete: (object) => enqueue(map(object)),
      });
    };
    watch(spec.forType, (object) => [objectKey(object)]);
    for (const owned of spec.owns ?? []) watch(owned, (object) => ownerKeys(object, spec.forType));
    for (const { type, map } of spec.watches ?? []) watch(type, map);
    this.controllers.push(controller);
    return controller;
  }

  /** Starts the informers, and the controllers once every informer has listed its kind. */
  async start(): Promise<void> {
    this.running = true;
    const informers = [...this.informers.values()];
    for (const informer of informers) informer.start();
    try {
      await syncedWithin(informers);
    } catch (error) {
      await this.stop();
      throw error;
    }
    for (const controller of this.controllers) controller.start();
  }

  /** Stops the controllers (after the passes under way), the informers and the client. */
  async stop(): Promise<void> {
    await Promise.all(this.controllers.map((c) => c.stop()));
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await this.client.close();
  }
}

/** A host running one simulated controller, started. */
export async function startSimulatedController(
  kubeConfig: ClusterAccess,
  spec: (host: SimulatorHost) => SimulatedControllerSpec,
): Promise<SimulatorHost> {
  const host = new SimulatorHost(kubeConfig);
  host.addController(spec(host));
  await host.start();
  return host;
}
