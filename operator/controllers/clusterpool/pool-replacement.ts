import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition } from '../../api/conditions.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { PoolTimings } from '../../timings.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { isClaimed } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';
import type { PoolAccounting } from './pool-accounting.js';
import { PoolEvent, PoolReason, readyMessage } from './pool-conditions.js';

/**
 * Failed, unclaimed instances are deleted so the pool replaces them, one at a time with per-pool
 * backoff (30 s, 1 min, 2 min … up to 15 min by default), and the pool's ProvisioningHealthy
 * condition says why.
 */
export class FailedReplacement {
  /**
   * Per pool: failed instances replaced in a row, when the first of them was, when the next may
   * be, and the last failure.
   */
  private readonly failures = new Map<
    string,
    { attempts: number; since: number; nextAt: number; lastFailure: string }
  >();

  constructor(
    private readonly ports: ControllerPorts,
    private readonly timings: PoolTimings,
  ) {}

  /**
   * Deletes one failed, unclaimed instance when the pool's backoff allows; undefined when there is
   * none.
   */
  async replace(
    key: string,
    accounting: PoolAccounting,
    leases: readonly Lease[],
    context: ReconcileContext,
    now: number,
  ): Promise<ReconcileResult | undefined> {
    const failed = accounting.failed[0];
    const streak = this.failures.get(key);
    // Only an instance that became Ready since the streak began ends it: a spare Ready from
    // before says nothing about whether provisioning works now.
    if (streak && accounting.available.some((i) => readySince(i) > streak.since))
      this.failures.delete(key);
    if (!failed) return undefined;
    const state = this.failures.get(key) ?? {
      attempts: 0,
      since: now,
      nextAt: now,
      lastFailure: '',
    };
    state.lastFailure = `${failed.metadata.name}: ${readyMessage(failed)}`;
    if (now < state.nextAt) return { requeueAt: state.nextAt };
    state.attempts += 1;
    const backoff = {
      baseMs: this.timings.replaceFailedBaseMs,
      maxMs: this.timings.replaceFailedMaxMs,
    };
    state.nextAt = now + backoffDelay(backoff, state.attempts);
    this.failures.set(key, state);
    const unclaimedFailure = (live: Instance): boolean =>
      live.status?.phase === 'Failed' && !isClaimed(live, leases);
    const outcome = await deleteInstanceIf(this.ports.client, failed, unclaimedFailure);
    if (outcome !== 'deleted') return {};
    context.logger.warn(
      { instance: failed.metadata.name, attempts: state.attempts },
      'Deleted failed ClusterInstance to replace it',
    );
    void this.ports.events.record(
      failed,
      'Warning',
      PoolEvent.InstanceFailed,
      `Deleted failed ClusterInstance ${failed.metadata.name} to replace it: ${readyMessage(failed)}`,
    );
    return {};
  }

  /** ProvisioningHealthy: whether instances keep failing, the latest failure, and the backoff. */
  condition(
    key: string,
    accounting: PoolAccounting,
    now: number,
    generation: number | undefined,
  ): ConditionUpdate {
    const state = this.failures.get(key);
    const failed = accounting.failed[0];
    if (!failed && !state) {
      return {
        type: 'ProvisioningHealthy',
        status: 'True',
        reason: PoolReason.NoFailures,
        message: 'No instance of this pool has failed recently',
        observedGeneration: generation,
      };
    }
    // Derived from what is failing now, else from the pool's record of replacements in a row
    // (kept until an instance becomes Ready), so a lost status write cannot lose the reason.
    const latest = failed ? `${failed.metadata.name}: ${readyMessage(failed)}` : state?.lastFailure;
    const wait = Math.max(0, (state?.nextAt ?? now) - now);
    const next = failed
      ? `Replacing with backoff (next in ${Math.round(wait / 1000)}s, attempt ${(state?.attempts ?? 0) + 1})`
      : `Replaced ${state?.attempts} in a row`;
    return {
      type: 'ProvisioningHealthy',
      status: 'False',
      reason: PoolReason.InstancesFailing,
      message: `Provisioning keeps failing; latest: ${latest}. ${next}`,
      observedGeneration: generation,
    };
  }
}

/** When the instance's Ready condition last turned True (0 when unknown). */
function readySince(instance: Instance): number {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  return ready?.status === 'True' ? Date.parse(ready.lastTransitionTime ?? '') || 0 : 0;
}
