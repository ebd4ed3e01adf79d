import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import {
  INSTANCES,
  LEASES,
  NAMESPACES,
  POOLS,
  VERSION_STREAMS,
} from '../../../client/api/resources.js';
import type { CrcBounds } from '../../crc-bounds.js';
import { crcVersionRefusal } from '../../crc-bounds.js';
import { objectKey, sameContent, splitKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import { sooner } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { PoolTimings } from '../../timings.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { isClaimed, nextInstanceName } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';
import { namesPool } from '../binding/pool-membership.js';
import type { NamespacePolicy } from '../namespace-policy.js';
import { namespacePolicyFrom } from '../namespace-policy.js';
import { bundleConsumersWatch, refusedBundle } from './crc-bundle-gate.js';
import { refusedCrcVersion } from './crc-version-gate.js';
import { ensureBundle } from './pool-bundle.js';
import type { OperatorScope } from '../../operator-scope.js';
import type { PoolAccounting } from './pool-accounting.js';
import { accountPool } from './pool-accounting.js';
import type { Pool } from './pool-conditions.js';
import { capacityCondition, foreignNames, namesCondition, PoolEvent } from './pool-conditions.js';
import { PoolDeletion } from './pool-deletion.js';
import type { InstanceRelease } from './pool-instance.js';
import { buildPoolInstance } from './pool-instance.js';
import {
  announceVersion,
  followedStream,
  unresolvedStatus,
  versionStatus,
} from './pool-version.js';
import { replaceStale } from './stale-rollout.js';
import type { StreamAnswer } from './stream-release.js';
import { FailedReplacement } from './pool-replacement.js';
import { replaceUnhealthySpare } from './unhealthy-spares.js';
import { writePoolStatus } from './pool-status-write.js';
import { balanceHibernation } from './spare-hibernation.js';
import { OwnGrants } from './own-grants.js';
import { SparesPlanner, withSparesPlan } from './pool-autoscaling.js';

/** What the pool controller takes from the operator's configuration. */
export interface PoolSettings {
  timings: PoolTimings;
  /** The admin's bounds on CRC versions (--allowed-crc-versions). */
  crc: CrcBounds;
  /** The operator's scope (--scope-labels): the CRCBundles it creates for pools carry its labels. */
  scope?: OperatorScope;
}
/**
 * A pool summarises all its instances and leases: while leases bind, every one of them changes
 * several of those. Events within this window give one pass and one status write, which leaves
 * the apiserver to the binds.
 */
const EVENT_COALESCE_MS = 50;
/**
 * Names a pass tries when the ones it chose turn out taken by objects its cache did not show yet.
 */
const MAX_NAME_ATTEMPTS = 5;

type PoolStatus = NonNullable<ClusterPool['status']>;

/** What one pass saw of the pool, for its status. */
interface PoolView {
  policy: NamespacePolicy;
  accounting: PoolAccounting;
  /** Names held by objects not the pool's; a create that finds one taken adds it. */
  taken: string[];
  release?: InstanceRelease;
  instances: readonly Instance[];
  leases: readonly Lease[];
}

/**
 * The ClusterPool controller (docs/reference/kinds.md#pool-reconcile): keeps the minSize,
 * warmSpares and pending-lease floors within maxSize, one create or delete per pass; replaces
 * failed unclaimed instances with per-pool backoff and says so in a condition. Instance names are
 * deterministic, so a pass on a stale cache, or a second manager, re-creates the same name and gets
 * AlreadyExists, never a phantom; a name held by an object that is not the pool's is skipped
 * (NamesAvailable says so). Every delete acts on a decision made from the cache, so it carries the
 * instance's UID and resourceVersion and is decided again on a live read when the instance changed
 * (it may have just been claimed). A deleted pool leaves claimed instances to their leases
 * (pool-deletion.ts). A pool that follows a VersionStream gives new instances the stream's
 * release and replaces stale spares one at a time (pool-version.ts, stale-rollout.ts).
 */
export class PoolController {
  private readonly deletion: PoolDeletion;
  private readonly replacement: FailedReplacement;
  private readonly grants: OwnGrants;
  private readonly spares: SparesPlanner;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: PoolSettings,
  ) {
    this.deletion = new PoolDeletion(ports);
    this.replacement = new FailedReplacement(ports, settings.timings);
    this.grants = new OwnGrants(ports.client);
    this.spares = new SparesPlanner(ports);
  }

  registration(): ControllerRegistration {
    const pools = this.ports.cache.view<ClusterPool>(POOLS);
    const following = this.ports.cache.indexBy<ClusterPool>(POOLS, (pool) => {
      const stream = pool.spec.template.versionStreamRef?.name;
      return stream ? [stream] : [];
    });
    return {
      name: 'clusterpool',
      forType: POOLS,
      coalesceMs: EVENT_COALESCE_MS,
      watches: [
        // The pool accounts for the instances that name it (the ones it made: pool-membership.ts):
        // a change to any of them is the pool's business.
        {
          type: INSTANCES,
          map: (instance) => {
            const pool = namesPool(instance as ClusterInstance);
            if (!instance.metadata?.namespace || !pool) return [];
            return [`${instance.metadata.namespace}/${pool}`];
          },
        },
        {
          type: LEASES,
          map: (lease) => [
            `${lease.metadata?.namespace}/${(lease as ClusterLease).spec.poolRef.name}`,
          ],
        },
        {
          type: NAMESPACES,
          map: (namespace) => pools.list(namespace.metadata?.name ?? '').map(objectKey),
        },
        // A stream that moves (or appears, or goes) concerns the pools that follow it.
        {
          type: VERSION_STREAMS,
          map: (stream) => following.get(stream.metadata?.name ?? '').map(objectKey),
        },
        bundleConsumersWatch(() => pools.list()),
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const { cache, clock } = this.ports;
    const { namespace = '', name } = splitKey(key);
    const cached = (await cache.read<ClusterPool>(POOLS)).get(name, namespace);
    if (!cached) {
      this.spares.forget(key);
      return {};
    }
    const inNamespace = (await cache.read<ClusterInstance>(INSTANCES)).list(namespace);
    // Only what the pool made counts; an instance that merely names it is not its (a tenant's).
    const instances = inNamespace.filter((i) => this.grants.isMember(i, name));
    const leases = (await cache.read<ClusterLease>(LEASES)).list(namespace);
    // Deleting a pool is not provisioning: a namespace that opted out drains it the same way.
    if (cached.metadata.deletionTimestamp)
      return this.deletion.drain(cached, instances, leases, context);
    const pool = await this.deletion.protect(cached, instances);
    const now = clock.now();
    const policy = await namespacePolicyFrom(this.ports, namespace);
    const counted = accountPool(pool, instances, leases);
    const seenLeases = { leases, leased: counted.leased };
    const plan = policy.enabled ? await this.spares.plan(key, pool, seenLeases, now) : undefined;
    const accounting = plan ? accountPool(pool, instances, leases, plan) : counted;
    const taken = foreignNames(pool, inNamespace, instances);
    const stream = await followedStream(this.ports, pool);
    const release = stream && 'release' in stream ? stream.release : undefined;
    const seen = { policy, accounting, taken, release, instances, leases };
    const status = (): PoolStatus =>
      withSparesPlan(this.poolStatus(key, pool, seen, now), plan, now);
    const blocked = await this.blocked(pool, { stream, policy }, status, context);
    if (blocked) {
      await this.writeStatus(pool, blocked);
      return {};
    }
    if (!policy.enabled) {
      await this.writeStatus(pool, status());
      return { requeueAfterMs: this.settings.timings.disabledRecheckMs };
    }
    const result = await this.provision(key, pool, { ...seen, inNamespace }, context, now);
    await this.writeStatus(pool, status());
    return plan ? sooner(result, plan.next) : result;
  }

  /**
   * The status of a pool that may create nothing, if it may not: the stream it follows has no
   * answer, the admin's bounds refuse its CRC version, or its bundle does not select its namespace
   * (crc-bundle-gate.ts). A crc pool's CRCBundle is made here.
   */
  private async blocked(
    pool: Pool,
    { stream, policy }: { stream?: StreamAnswer; policy: NamespacePolicy },
    status: () => PoolStatus,
    context: ReconcileContext,
  ): Promise<PoolStatus | undefined> {
    if (stream && 'unresolved' in stream)
      return unresolvedStatus(this.ports, pool, status(), stream.unresolved);
    const template = stream?.release ?? pool.spec.template;
    const crcVersion = pool.spec.type === 'crc' ? template.crcVersion : undefined;
    const allowed = !crcVersionRefusal(this.settings.crc, crcVersion);
    if (policy.enabled && allowed && crcVersion)
      await ensureBundle(
        this.ports,
        pool,
        { version: crcVersion, scope: this.settings.scope },
        context,
      );
    return (
      refusedCrcVersion(this.ports, this.settings.crc, pool, crcVersion, status()) ??
      (await refusedBundle(this.ports, pool, template, status()))
    );
  }

  /**
   * One change per pass (docs/reference/kinds.md#pool-reconcile): replace a failed instance,
   * else create one the floors need, else replace a stale spare, else trim an idle one.
   */
  private async provision(
    key: string,
    pool: Pool,
    seen: PoolView & { inNamespace: readonly Instance[] },
    context: ReconcileContext,
    now: number,
  ): Promise<ReconcileResult> {
    const { accounting, leases, release, taken } = seen;
    await this.grants.retryFailed(seen.instances, now);
    const replaced = await this.replacement.replace(key, accounting, leases, context, now);
    if (replaced !== undefined) return replaced;
    const { unhealthySpareGraceMs } = this.settings.timings;
    const unhealthy = await replaceUnhealthySpare(
      this.ports,
      seen.instances,
      leases,
      unhealthySpareGraceMs,
      context,
    );
    if (unhealthy && !unhealthy.requeueAt) return unhealthy;
    if (accounting.need > 0 && accounting.room > 0) {
      const objects = [...seen.inNamespace, ...leases];
      await this.createInstance(pool, { accounting, release }, objects, taken, context);
      return {};
    }
    const rollout = release && { accounting, leases, version: release.ocpVersion };
    if (rollout && (await replaceStale(this.ports, pool, rollout, context))) return {};
    const instances = seen.instances;
    const power = await balanceHibernation(
      this.ports,
      pool,
      { accounting, instances, leases },
      context,
      now,
    );
    if (power.changed) return {};
    const trimmed = sooner(
      await this.scaleDown(pool, accounting, leases, context, now),
      power.result,
    );
    return unhealthy ? sooner(trimmed, unhealthy) : trimmed;
  }

  /**
   * Creates `<pool>-<N>` with the smallest N that no object of the namespace holds (instances of
   * any pool, and leases, whose kubeconfig Secret names would collide). AlreadyExists means the
   * cache is behind: an instance of this pool (another manager's create) ends the pass; an object
   * that is not the pool's is added to `taken` and the next name is tried.
   */
  private async createInstance(
    pool: Pool,
    { accounting, release }: { accounting: PoolAccounting; release?: InstanceRelease },
    objects: readonly { metadata: { name: string } }[],
    taken: string[],
    context: ReconcileContext,
  ): Promise<void> {
    const { client, events } = this.ports;
    const { name: poolName, namespace } = pool.metadata;
    const skipped = taken.map((name) => ({ metadata: { name } }));
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      const name = nextInstanceName(poolName, [...objects, ...skipped]);
      const created = await client.createIfAbsent(
        INSTANCES,
        buildPoolInstance(pool, name, release),
      );
      if (created) {
        // The authorization that makes it the pool's, before anything acts on it.
        await this.grants.grant(created, poolName, this.ports.clock.now());
        context.logger.info({ instance: name, need: accounting.need }, 'Created ClusterInstance');
        void events.record(
          pool,
          'Normal',
          PoolEvent.InstanceCreated,
          `Created ClusterInstance ${name} (need ${accounting.need})`,
        );
        return;
      }
      const holder = await client.getOrUndefined<ClusterInstance>(INSTANCES, name, namespace);
      // Another manager's create (its grant may follow) ends the pass; anything else is skipped.
      if (holder && namesPool(holder) === poolName) return;
      if (!taken.includes(name)) taken.push(name);
      skipped.push({ metadata: { name } });
      context.logger.warn({ instance: name }, 'Skipped an instance name taken by another object');
    }
  }

  /**
   * Counters and conditions (ProvisioningAllowed, CapacityAvailable, ProvisioningHealthy,
   * NamesAvailable), and the version with its conditions (pool-version.ts).
   */
  private poolStatus(key: string, pool: Pool, seen: PoolView, now: number): PoolStatus {
    const { policy, accounting, taken } = seen;
    const generation = pool.metadata.generation;
    let conditions = setCondition(
      pool.status?.conditions,
      {
        type: 'ProvisioningAllowed',
        status: policy.enabled ? 'True' : 'False',
        reason: policy.reason,
        message: policy.message,
        observedGeneration: generation,
      },
      now,
    );
    conditions = setCondition(conditions, capacityCondition(pool, accounting, generation), now);
    const failedCondition = this.replacement.condition(key, accounting, now, generation);
    conditions = setCondition(conditions, failedCondition, now);
    conditions = setCondition(conditions, namesCondition(pool, taken, generation), now);
    const counted: PoolStatus = {
      ...pool.status,
      totalInstances: accounting.total,
      terminatingInstances: accounting.terminating,
      availableInstances: accounting.available.length,
      leasedInstances: accounting.leased,
      observedGeneration: generation,
      conditions,
    };
    // Only a pool that hibernates (or did) says how many of its spares are hibernated.
    if (pool.spec.hibernation || accounting.hibernated.length)
      counted.hibernatedInstances = accounting.hibernated.length;
    else delete counted.hibernatedInstances;
    return versionStatus(pool, counted, seen, now);
  }

  /** Trims at most one idle spare above the floors (docs/reference/kinds.md#pool-reconcile). */
  private async scaleDown(
    pool: Pool,
    accounting: PoolAccounting,
    leases: readonly Lease[],
    context: ReconcileContext,
    now: number,
  ): Promise<ReconcileResult> {
    const idleMs = this.settings.timings.scaleDownIdleMs;
    const { minSize = 0 } = pool.spec;
    const { warmSpares } = accounting;
    // Hibernated spares count towards the floors too; only running ones are trimmed here.
    const spares = accounting.available.length + accounting.hibernated.length;
    const excess = Math.min(
      spares - Math.max(warmSpares, accounting.pendingDemand),
      accounting.total - minSize,
      accounting.available.length,
    );
    if (excess <= 0) return {};
    const created = (i: Instance): number => Date.parse(i.metadata.creationTimestamp ?? '');
    const idleSince = (i: Instance): number => {
      const ready = findCondition(i.status?.conditions, 'Ready')?.lastTransitionTime;
      return ready ? Date.parse(ready) : created(i);
    };
    const eligible = accounting.available.filter((i) => now - idleSince(i) >= idleMs);
    if (eligible.length === 0) {
      const soonest = Math.min(...accounting.available.map((i) => idleMs - (now - idleSince(i))));
      return { requeueAfterMs: Math.max(1, Math.min(idleMs, soonest)) };
    }
    const newest = eligible.reduce((a, b) => (created(b) > created(a) ? b : a));
    const stillIdle = (live: Instance): boolean =>
      live.status?.phase === 'Ready' &&
      !live.metadata.deletionTimestamp &&
      !isClaimed(live, leases);
    if ((await deleteInstanceIf(this.ports.client, newest, stillIdle)) === 'deleted')
      context.logger.info(
        { instance: newest.metadata.name },
        'Deleted idle ClusterInstance above the pool floors',
      );
    return {};
  }

  private async writeStatus(pool: Pool, status: PoolStatus): Promise<void> {
    if (sameContent(pool.status ?? {}, status)) return;
    announceVersion(this.ports, pool, status);
    await writePoolStatus(this.ports, pool, status);
  }
}
