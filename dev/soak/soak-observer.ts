import { createHash } from 'node:crypto';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, SECRETS } from '../../client/api/resources.js';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { Informer } from '../../operator/runtime/informer.js';
import { RuntimeMetrics } from '../../operator/runtime/metrics.js';
import type { Secret } from '../../operator/kube/workloads.js';
import {
  PLATFORM_WATCH_BACKOFF,
  platformLogger,
  syncedWithin,
} from '../platform/host/simulator-host.js';
import type { InstanceView, InvariantChecker, LeaseView } from './invariant-checker.js';

const TICK_MS = 1000;

const time = (timestamp: string | undefined): number | undefined =>
  timestamp ? Date.parse(timestamp) : undefined;

export function leaseView(lease: ClusterLease): LeaseView {
  const conditions = lease.status?.conditions ?? [];
  const unmet = (type: string): string | undefined =>
    conditions.find((c) => c.type === type && c.status === 'False')?.reason || undefined;
  return {
    uid: lease.metadata!.uid!,
    name: lease.metadata!.name!,
    createdAtMs: time(lease.metadata?.creationTimestamp) ?? Date.now(),
    instanceUid: lease.status?.instanceRef?.uid,
    phase: lease.status?.phase,
    deletingAtMs: time(lease.metadata?.deletionTimestamp),
    waitReason: unmet('Ready') ?? unmet('Bound'),
  };
}

function instanceView(instance: ClusterInstance): InstanceView {
  return {
    uid: instance.metadata!.uid!,
    name: instance.metadata!.name!,
    leaseUid: instance.status?.leaseRef?.uid,
    deletingAtMs: time(instance.metadata?.deletionTimestamp),
    kubeconfigSha256: instance.status?.kubeconfigSHA256,
  };
}

/** The ClusterLease that controls a Secret, if one does. */
function controllingLease(secret: Secret): string | undefined {
  return secret.metadata?.ownerReferences?.find((o) => o.kind === 'ClusterLease' && o.controller)
    ?.uid;
}

type Waiter = {
  name: string;
  until: (lease: ClusterLease | undefined) => boolean;
  resolve: () => void;
};

/**
 * The soak's watches of leases, instances and Secrets in its namespace, feeding every change to
 * the invariant checker as it comes (and ticking it each second); the load generator waits on
 * the lease watch too.
 */
export class SoakObserver {
  private readonly client: ApiClient;
  private readonly informers: Informer<KubeObject>[] = [];
  private readonly waiters = new Set<Waiter>();
  private leases!: Informer<ClusterLease>;
  private instances!: Informer<ClusterInstance>;
  private readonly instanceWaiters = new Set<(instance: ClusterInstance) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    access: ClusterAccess,
    private readonly namespace: string,
    private readonly checker: InvariantChecker,
  ) {
    this.client = new ApiClient(access);
  }

  async start(): Promise<void> {
    const { checker } = this;
    this.leases = this.watch<ClusterLease>(LEASES, {
      seen: (lease) => checker.leaseSeen(leaseView(lease), Date.now()),
      gone: (lease) => checker.leaseGone(leaseView(lease), Date.now()),
    });
    this.leases.addHandlers({
      onAdd: (lease) => this.wake(lease),
      onUpdate: (_, lease) => this.wake(lease),
      onDelete: (lease) => this.wake(lease, true),
    });
    this.instances = this.watch<ClusterInstance>(INSTANCES, {
      seen: (instance) => {
        checker.instanceSeen(instanceView(instance), Date.now());
        for (const waiter of this.instanceWaiters) waiter(instance);
      },
      gone: (instance) => checker.instanceGone(instanceView(instance), Date.now()),
    });
    this.watch<Secret>(SECRETS, {
      seen: (secret) => this.secretSeen(secret),
      gone: () => undefined,
    });
    await syncedWithin(this.informers);
    this.timer = setInterval(() => checker.tick(Date.now()), TICK_MS);
  }

  /** The lease as the watch has it now. */
  lease(name: string): ClusterLease | undefined {
    return this.leases.get(`${this.namespace}/${name}`);
  }

  /** Leases the watch has now. */
  leaseNames(): string[] {
    return this.leases.list().map((lease) => lease.metadata!.name!);
  }

  /** Resolves once the lease (undefined: gone) satisfies `until`, or false after `timeoutMs`. */
  async whenLease(name: string, until: Waiter['until'], timeoutMs: number): Promise<boolean> {
    if (until(this.lease(name))) return true;
    let timer: NodeJS.Timeout | undefined;
    let waiter: Waiter | undefined;
    const met = new Promise<boolean>((resolve) => {
      waiter = { name, until, resolve: () => resolve(true) };
      this.waiters.add(waiter);
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await met;
    } finally {
      clearTimeout(timer);
      this.waiters.delete(waiter!);
    }
  }

  /** The first instance (there now, or to come) that satisfies `filter`; undefined after `timeoutMs`. */
  async whenInstance(
    filter: (instance: ClusterInstance) => boolean,
    timeoutMs: number,
  ): Promise<ClusterInstance | undefined> {
    const present = this.instances.list(filter)[0];
    if (present) return present;
    let timer: NodeJS.Timeout | undefined;
    let waiter: ((instance: ClusterInstance) => void) | undefined;
    try {
      return await new Promise<ClusterInstance | undefined>((resolve) => {
        waiter = (instance) => filter(instance) && resolve(instance);
        this.instanceWaiters.add(waiter);
        timer = setTimeout(() => resolve(undefined), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
      this.instanceWaiters.delete(waiter!);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.informers.map((informer) => informer.stop()));
    await this.client.close();
  }

  private wake(lease: ClusterLease, gone = false): void {
    for (const waiter of this.waiters)
      if (waiter.name === lease.metadata?.name && waiter.until(gone ? undefined : lease))
        waiter.resolve();
  }

  private secretSeen(secret: Secret): void {
    const leaseUid = controllingLease(secret);
    const kubeconfig = secret.data?.kubeconfig;
    if (!leaseUid) return;
    // Only a hash is kept: the soak never holds or prints a kubeconfig.
    const kubeconfigSha256 = kubeconfig
      ? createHash('sha256').update(Buffer.from(kubeconfig, 'base64')).digest('hex')
      : undefined;
    this.checker.secretSeen(
      { uid: secret.metadata!.uid!, name: secret.metadata!.name!, leaseUid, kubeconfigSha256 },
      Date.now(),
    );
  }

  private watch<T extends KubeObject>(
    type: ResourceType,
    on: { seen: (object: T) => void; gone: (object: T) => void },
  ): Informer<T> {
    const informer = new Informer<T>({
      type,
      namespace: this.namespace,
      client: this.client,
      logger: platformLogger(),
      metrics: new RuntimeMetrics(),
      backoff: PLATFORM_WATCH_BACKOFF,
    });
    informer.addHandlers({
      onAdd: on.seen,
      onUpdate: (_, current) => on.seen(current),
      onDelete: on.gone,
    });
    informer.start();
    this.informers.push(informer);
    return informer;
  }
}
