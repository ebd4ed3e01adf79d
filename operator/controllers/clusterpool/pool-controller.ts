import { findCondition, setCondition } from '../../api/conditions.js';
import { LABEL_POOL } from '../../api/labels.js';
import type { ClusterInstance, ClusterLease, ClusterPool, CRCBundle } from '../../api/resources.js';
import { BUNDLES, INSTANCES, LEASES, NAMESPACES, POOLS } from '../../api/resources.js';
import { isAlreadyExists, isConflict } from '../../kube/api-error.js';
import { sameContent, splitKey } from '../../kube/objects.js';
import { deleteInstanceIf, readInstance } from '../instance-deletion.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import { labelKey } from '../../runtime/owner-keys.js';
import type { NamespacePolicy } from '../namespace-policy.js';
import { namespacePolicy } from '../namespace-policy.js';
import type { PoolAccounting } from './pool-accounting.js';
import { accountPool, claimedInstances, nextInstanceName } from './pool-accounting.js';
import { capacityCondition, foreignNames, namesCondition } from './pool-conditions.js';
import { PoolDeletion } from './pool-deletion.js';
import { FailedReplacement } from './pool-replacement.js';
import { crcVersionRefusal } from '../../crc-bounds.js';
import { refusedCrcVersion } from './crc-version-gate.js';
import { buildPoolInstance } from './pool-instance.js';
import { crcBundleName, DEFAULT_CRC_ARCH } from '../../../contracts/names.js';

const byPoolLabel = labelKey(LABEL_POOL);

const DISABLED_RECHECK_MS = 20_000;
const SCALE_DOWN_IDLE_MS = 2 * 60_000;
/**
 * A pool summarises all its instances and leases: while leases bind, every one of them changes
 * several of those. Events within this window give one pass and one status write, which leaves
 * the apiserver to the binds.
 */
const EVENT_COALESCE_MS = 50;
/** Names a pass tries when the ones it chose turn out taken by objects its cache did not show yet. */
const MAX_NAME_ATTEMPTS = 5;

type PoolStatus = NonNullable<ClusterPool['status']>;

/**
 * The ClusterPool controller (spec §2.1): keeps the minSize, warmSpares and pending-lease floors
 * within maxSize, one create or delete per pass; replaces failed unclaimed instances with per-pool
 * backoff and says so in a condition. Instance names are deterministic, so a pass on a stale
 * cache, or a second manager, re-creates the same name and gets AlreadyExists, never a phantom;
 * a name held by an object that is not the pool's is skipped (NamesAvailable says so). Every
 * delete acts on a decision made from the cache, so it carries the instance's UID and
 * resourceVersion and is decided again on a live read when the instance changed (it may have
 * just been claimed). A deleted pool leaves claimed instances to their leases (pool-deletion.ts).
 */
export class PoolController {
  private readonly deletion: PoolDeletion;
  private readonly replacement: FailedReplacement;

  constructor(private readonly manager: Manager) {
    this.deletion = new PoolDeletion(manager);
    this.replacement = new FailedReplacement(manager);
  }

  registration(): ControllerRegistration {
    const pools = this.manager.informer<ClusterPool>(POOLS);
    return {
      name: 'clusterpool',
      forType: POOLS,
      coalesceMs: EVENT_COALESCE_MS,
      watches: [
        // The pool accounts for the instances that carry its label (the ones it creates are also
        // owned by it): a change to any of them is the pool's business.
        { type: INSTANCES, map: (instance) => byPoolLabel(instance) },
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
    const cached = this.manager.informer<ClusterPool>(POOLS).get(key);
    if (!cached) return {};
    const { namespace } = splitKey(key);
    const inNamespace = this.manager
      .informer<ClusterInstance>(INSTANCES)
      .list((i) => i.metadata!.namespace === namespace);
    const instances = inNamespace.filter(
      (i) => i.metadata?.labels?.[LABEL_POOL] === cached.metadata!.name,
    );
    const leases = this.manager
      .informer<ClusterLease>(LEASES)
      .list((l) => l.metadata!.namespace === namespace);
    // Deleting a pool is not provisioning: a namespace that opted out drains it the same way.
    if (cached.metadata?.deletionTimestamp)
      return this.deletion.drain(cached, instances, leases, context);
    const pool = await this.deletion.protect(cached, instances);
    const now = this.manager.clock.now();
    const policy = await namespacePolicy(this.manager, namespace!);
    const allowed = !crcVersionRefusal(this.manager.config.crc, pool.spec.template.crcVersion);
    if (policy.enabled && allowed && pool.spec.type === 'crc' && pool.spec.template.crcVersion)
      await this.ensureBundle(pool, context);

    const accounting = accountPool(pool, instances, leases);
    const taken = foreignNames(pool, inNamespace);
    const status = (): PoolStatus => this.poolStatus(key, pool, { policy, accounting, taken }, now);
    const writeStatus = (): Promise<void> => this.writeStatus(pool, status());
    const refused = refusedCrcVersion(this.manager, pool, status());
    if (refused) {
      await this.writeStatus(pool, refused);
      return {};
    }

    if (!policy.enabled) {
      await writeStatus();
      return { requeueAfterMs: DISABLED_RECHECK_MS };
    }
    const replaced = await this.replacement.replace(key, accounting, leases, context, now);
    if (replaced !== undefined) {
      await writeStatus();
      return replaced;
    }
    if (accounting.need > 0 && accounting.room > 0) {
      await this.createInstance(pool, accounting, [...inNamespace, ...leases], taken, context);
      await writeStatus();
      return {};
    }
    const result = await this.scaleDown(pool, accounting, leases, context, now);
    await writeStatus();
    return result;
  }

  /**
   * Creates `<pool>-<N>` with the smallest N that no object of the namespace holds (instances of
   * any pool, and leases, whose kubeconfig Secret names would collide). AlreadyExists means the
   * cache is behind: an instance of this pool (another manager's create) ends the pass; an object
   * that is not the pool's is added to `taken` and the next name is tried.
   */
  private async createInstance(
    pool: ClusterPool,
    accounting: PoolAccounting,
    objects: readonly { metadata?: { name?: string } }[],
    taken: string[],
    context: ReconcileContext,
  ): Promise<void> {
    const skipped = taken.map((name) => ({ metadata: { name } }));
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      const name = nextInstanceName(pool.metadata!.name!, [...objects, ...skipped]);
      try {
        await this.manager.client.create(INSTANCES, buildPoolInstance(pool, name));
        context.logger.info({ instance: name, need: accounting.need }, 'Created ClusterInstance');
        void this.manager.events.record(
          pool,
          'Normal',
          'InstanceCreated',
          `Created ClusterInstance ${name} (need ${accounting.need})`,
        );
        return;
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
      const holder = await readInstance(this.manager.client, name, pool.metadata!.namespace!);
      if (holder?.metadata?.labels?.[LABEL_POOL] === pool.metadata!.name) return;
      if (!taken.includes(name)) taken.push(name);
      skipped.push({ metadata: { name } });
      context.logger.warn({ instance: name }, 'Skipped an instance name taken by another object');
    }
  }

  /** Counters and conditions (ProvisioningAllowed, CapacityAvailable, ProvisioningHealthy, NamesAvailable). */
  private poolStatus(
    key: string,
    pool: ClusterPool,
    seen: { policy: NamespacePolicy; accounting: PoolAccounting; taken: readonly string[] },
    now: number,
  ): PoolStatus {
    const { policy, accounting, taken } = seen;
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
    const failedCondition = this.replacement.condition(key, accounting, now, generation);
    conditions = setCondition(conditions, failedCondition, now);
    conditions = setCondition(conditions, namesCondition(pool, taken, generation), now);
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
    const arch = pool.spec.template.crcArch || DEFAULT_CRC_ARCH;
    const name = crcBundleName(pool.spec.template.crcVersion!, arch);
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

  /** Trims at most one idle spare above the floors (spec §2.1 step 14). */
  private async scaleDown(
    pool: ClusterPool,
    accounting: PoolAccounting,
    leases: readonly ClusterLease[],
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
    const stillIdle = (live: ClusterInstance): boolean =>
      live.status?.phase === 'Ready' &&
      !live.metadata?.deletionTimestamp &&
      !claimedInstances([live], leases).size;
    if ((await this.deleteIf(newest, stillIdle)) === 'deleted')
      context.logger.info(
        { instance: newest.metadata!.name },
        'Deleted idle ClusterInstance above the pool floors',
      );
    return {};
  }

  /** Deletes an instance chosen from the cache while `stillWanted` holds for it live. */
  private deleteIf(
    instance: ClusterInstance,
    stillWanted: (live: ClusterInstance) => boolean,
  ): ReturnType<typeof deleteInstanceIf> {
    return deleteInstanceIf(this.manager.client, instance, stillWanted);
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
