import { findCondition, setCondition } from '../../api/conditions.js';
import { LABEL_POOL } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool, CRCBundle } from '../../api/resources.js';
import { BUNDLES, INSTANCES, LEASES, NAMESPACES, POOLS } from '../../api/resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../kube/api-error.js';
import { sameContent, splitKey } from '../../kube/objects.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import type { NamespacePolicy } from '../namespace-policy.js';
import { namespacePolicy } from '../namespace-policy.js';
import type { PoolAccounting } from './pool-accounting.js';
import { accountPool, nextInstanceName } from './pool-accounting.js';
import { crcVersionRefusal } from '../../crc-bounds.js';
import { refusedCrcVersion } from './crc-version-gate.js';
import { buildPoolInstance } from './pool-instance.js';

const DISABLED_RECHECK_MS = 20_000;
const SCALE_DOWN_IDLE_MS = 2 * 60_000;
/**
 * A pool summarises all its instances and leases: while leases bind, every one of them changes
 * several of those. Events within this window give one pass and one status write, which leaves
 * the apiserver to the binds.
 */
const EVENT_COALESCE_MS = 50;
/** Replacing failed instances backs off per pool: 30 s, 1 min, 2 min … up to 15 min. */
const REPLACE_FAILED_BACKOFF = { baseMs: 30_000, maxMs: 15 * 60_000 };

type PoolStatus = NonNullable<ClusterPool['status']>;

/**
 * The ClusterPool controller (spec §2.1): keeps the minSize, warmSpares and pending-lease floors
 * within maxSize, one create or delete per pass; replaces failed unclaimed instances with per-pool
 * backoff and says so in a condition. Instance names are deterministic, so a pass on a stale
 * cache, or a second manager, re-creates the same name and gets AlreadyExists, never a phantom.
 */
export class PoolController {
  /** Per pool: failed instances replaced in a row, when the next may be, and the last failure. */
  private readonly failures = new Map<
    string,
    { attempts: number; nextAt: number; lastFailure: string }
  >();

  constructor(private readonly manager: Manager) {}

  registration(): ControllerRegistration {
    const pools = this.manager.informer<ClusterPool>(POOLS);
    return {
      name: 'clusterpool',
      forType: POOLS,
      owns: [INSTANCES],
      coalesceMs: EVENT_COALESCE_MS,
      watches: [
        {
          type: LEASES,
          map: (lease) => [
            `${lease.metadata!.namespace}/${(lease as ClusterLease).spec.poolRef.name}`,
          ],
        },
        {
          type: NAMESPACES,
          map: (namespace) =>
            pools
              .list((p) => p.metadata!.namespace === namespace.metadata!.name)
              .map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`),
        },
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const pool = this.manager.informer<ClusterPool>(POOLS).get(key);
    if (!pool || pool.metadata?.deletionTimestamp) return {};
    const { namespace } = splitKey(key);
    const now = this.manager.clock.now();
    const policy = await namespacePolicy(this.manager, namespace!);
    const allowed = !crcVersionRefusal(this.manager.config.crc, pool.spec.template.crcVersion);
    if (policy.enabled && allowed && pool.spec.type === 'crc' && pool.spec.template.crcVersion)
      await this.ensureBundle(pool, context);

    const instances = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list(
        (i) =>
          i.metadata!.namespace === namespace &&
          i.metadata?.labels?.[LABEL_POOL] === pool.metadata!.name,
      );
    const leases = this.manager
      .informer<ClusterLease>(LEASES)
      .list((l) => l.metadata!.namespace === namespace);
    const accounting = accountPool(pool, instances, leases);
    const status = this.poolStatus(key, pool, policy, accounting, now);
    const writeStatus = (): Promise<void> => this.writeStatus(pool, status);
    const refused = refusedCrcVersion(this.manager, pool, status);
    if (refused) {
      await this.writeStatus(pool, refused);
      return {};
    }

    if (!policy.enabled) {
      await writeStatus();
      return { requeueAfterMs: DISABLED_RECHECK_MS };
    }
    const replaced = await this.replaceFailed(key, accounting, context, now);
    if (replaced !== undefined) {
      await writeStatus();
      return replaced;
    }
    if (accounting.need > 0 && accounting.room > 0) {
      const name = nextInstanceName(pool.metadata!.name!, [...instances, ...leases]);
      try {
        await this.manager.client.create(INSTANCES, buildPoolInstance(pool, name));
        context.logger.info({ instance: name, need: accounting.need }, 'Created ClusterInstance');
        void this.manager.events.record(
          pool,
          'Normal',
          'InstanceCreated',
          `Created ClusterInstance ${name} (need ${accounting.need})`,
        );
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
      await writeStatus();
      return {};
    }
    const result = await this.scaleDown(pool, accounting, context, now);
    await writeStatus();
    return result;
  }

  /** Counters and conditions (ProvisioningAllowed, CapacityAvailable, ProvisioningHealthy). */
  private poolStatus(
    key: string,
    pool: ClusterPool,
    policy: NamespacePolicy,
    accounting: PoolAccounting,
    now: number,
  ): PoolStatus {
    const generation = pool.metadata?.generation;
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
    const failedCondition = this.failedCondition(key, accounting, now, generation);
    conditions = setCondition(conditions, failedCondition, now);
    return {
      ...pool.status,
      totalInstances: accounting.total,
      terminatingInstances: accounting.terminating,
      availableInstances: accounting.available.length,
      leasedInstances: accounting.leased,
      observedGeneration: generation,
      conditions,
    };
  }

  private async ensureBundle(pool: ClusterPool, context: ReconcileContext): Promise<void> {
    const arch = pool.spec.template.crcArch || 'amd64';
    const name = `crc-${pool.spec.template.crcVersion}-${arch}`;
    if (this.manager.informer<CRCBundle>(BUNDLES).get(name)) return;
    try {
      await this.manager.client.create(BUNDLES, {
        apiVersion: BUNDLES.apiVersion,
        kind: BUNDLES.kind,
        metadata: { name },
        spec: {
          version: pool.spec.template.crcVersion,
          arch,
          storageClassName: pool.spec.template.storageClassName,
        },
      });
      context.logger.info({ bundle: name }, 'Created CRCBundle for pool');
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /** Deletes one failed, unclaimed instance when the pool's backoff allows; undefined when there is none. */
  private async replaceFailed(
    key: string,
    accounting: PoolAccounting,
    context: ReconcileContext,
    now: number,
  ): Promise<ReconcileResult | undefined> {
    const failed = accounting.failed[0];
    if (!failed) {
      if (accounting.available.length > 0) this.failures.delete(key);
      return undefined;
    }
    const state = this.failures.get(key) ?? { attempts: 0, nextAt: now, lastFailure: '' };
    state.lastFailure = `${failed.metadata!.name}: ${readyMessage(failed)}`;
    if (now < state.nextAt) return { requeueAfterMs: state.nextAt - now };
    state.attempts += 1;
    state.nextAt = now + backoffDelay(REPLACE_FAILED_BACKOFF, state.attempts);
    this.failures.set(key, state);
    await this.deleteInstance(failed);
    context.logger.warn(
      { instance: failed.metadata!.name, attempts: state.attempts },
      'Deleted failed ClusterInstance to replace it',
    );
    void this.manager.events.record(
      failed,
      'Warning',
      'InstanceFailed',
      `Deleted failed ClusterInstance ${failed.metadata!.name} to replace it: ${readyMessage(failed)}`,
    );
    return {};
  }

  private failedCondition(
    key: string,
    accounting: PoolAccounting,
    now: number,
    generation: number | undefined,
  ): Parameters<typeof setCondition>[1] {
    const state = this.failures.get(key);
    const failed = accounting.failed[0];
    if (!failed && !state) {
      return {
        type: 'ProvisioningHealthy',
        status: 'True',
        reason: 'NoFailures',
        message: 'No instance of this pool has failed recently',
        observedGeneration: generation,
      };
    }
    // Derived from what is failing now, else from the pool's record of replacements in a row
    // (kept until an instance becomes Ready), so a lost status write cannot lose the reason.
    const latest = failed
      ? `${failed.metadata!.name}: ${readyMessage(failed)}`
      : state!.lastFailure;
    const wait = Math.max(0, (state?.nextAt ?? now) - now);
    const next = failed
      ? `Replacing with backoff (next in ${Math.round(wait / 1000)}s, attempt ${(state?.attempts ?? 0) + 1})`
      : `Replaced ${state!.attempts} in a row`;
    return {
      type: 'ProvisioningHealthy',
      status: 'False',
      reason: 'InstancesFailing',
      message: `Provisioning keeps failing; latest: ${latest}. ${next}`,
      observedGeneration: generation,
    };
  }

  /** Trims at most one idle spare above the floors (spec §2.1 step 14). */
  private async scaleDown(
    pool: ClusterPool,
    accounting: PoolAccounting,
    context: ReconcileContext,
    now: number,
  ): Promise<ReconcileResult> {
    const { minSize = 0, warmSpares = 0 } = pool.spec;
    const excess = Math.min(
      accounting.available.length - Math.max(warmSpares, accounting.pendingDemand),
      accounting.total - minSize,
    );
    if (excess <= 0) return {};
    const idleSince = (i: ClusterInstance): number =>
      Date.parse(
        findCondition(i.status?.conditions, 'Ready')?.lastTransitionTime ??
          i.metadata!.creationTimestamp!,
      );
    const eligible = accounting.available.filter((i) => now - idleSince(i) >= SCALE_DOWN_IDLE_MS);
    if (eligible.length === 0) {
      const soonest = Math.min(
        ...accounting.available.map((i) => SCALE_DOWN_IDLE_MS - (now - idleSince(i))),
      );
      return { requeueAfterMs: Math.max(1, Math.min(SCALE_DOWN_IDLE_MS, soonest)) };
    }
    const newest = eligible.reduce((a, b) =>
      Date.parse(b.metadata!.creationTimestamp!) > Date.parse(a.metadata!.creationTimestamp!)
        ? b
        : a,
    );
    await this.deleteInstance(newest);
    context.logger.info(
      { instance: newest.metadata!.name },
      'Deleted idle ClusterInstance above the pool floors',
    );
    return {};
  }

  private async deleteInstance(instance: ClusterInstance): Promise<void> {
    try {
      await this.manager.client.delete(
        INSTANCES,
        instance.metadata!.name!,
        instance.metadata!.namespace,
        { uid: instance.metadata!.uid },
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private async writeStatus(pool: ClusterPool, status: PoolStatus): Promise<void> {
    if (sameContent(pool.status ?? {}, status)) return;
    try {
      await this.manager.client.updateStatus(POOLS, { ...pool, status });
    } catch (error) {
      // The cache is behind the pool: the newer version's watch event enqueues this pool again,
      // and that pass computes the status from it. Retrying with backoff would only add load.
      if (!isConflict(error)) throw error;
    }
  }
}

function readyMessage(instance: ClusterInstance): string {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  return ready ? `${ready.reason}: ${ready.message}` : 'no Ready condition';
}

function capacityCondition(
  pool: ClusterPool,
  accounting: PoolAccounting,
  generation: number | undefined,
): Parameters<typeof setCondition>[1] {
  const { maxSize, minSize = 0, warmSpares = 0 } = pool.spec;
  if (maxSize < minSize || maxSize < warmSpares) {
    return {
      type: 'CapacityAvailable',
      status: 'False',
      reason: 'MaxSizeTooSmall',
      message: `maxSize (${maxSize}) is below minSize (${minSize}) and/or warmSpares (${warmSpares}): pool cannot reach its configured floors`,
      observedGeneration: generation,
    };
  }
  if (accounting.need > 0 && accounting.room <= 0) {
    return {
      type: 'CapacityAvailable',
      status: 'False',
      reason: 'AtCapacity',
      message: `pool is at maxSize (${maxSize}); unmet deficit of ${accounting.need} instance(s) (pendingDemand=${accounting.pendingDemand}) cannot be satisfied until capacity is released`,
      observedGeneration: generation,
    };
  }
  return {
    type: 'CapacityAvailable',
    status: 'True',
    reason: 'CapacitySufficient',
    message: 'pool has capacity to satisfy minSize/warmSpares and pending lease demand',
    observedGeneration: generation,
  };
}
