import { findCondition } from '../../api/conditions.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { isClaimed } from '../binding/binding-model.js';
import { deleteInstanceIf } from '../binding/instance-deletion.js';
import { formatGoDuration } from '../../../client/api/duration.js';
import { PoolEvent } from './pool-conditions.js';
import { resumeUnderWay } from '../clusterinstance/core/hibernation.js';

/**
 * Since when, and why, a spare has been unhealthy: Ready but failing its readiness gates
 * (GuestHealthy=False), or Ready once and not Ready since (the guest stopped answering).
 */
function unhealthy(instance: Instance): { since: number; why: string } | undefined {
  // A guest that fails its gates often loses readiness next: the earlier sign starts the grace.
  const gates = failingGates(instance);
  const sign = instance.status?.phase === 'Ready' ? gates : readinessLost(instance);
  if (!sign) return undefined;
  const times = [sign, gates]
    .map((s) => Date.parse(s?.condition.lastTransitionTime ?? ''))
    .filter((t) => !Number.isNaN(t));
  return times.length ? { since: Math.min(...times), why: sign.why } : undefined;
}

type Sign = { condition: { lastTransitionTime?: string }; why: string };

function failingGates(instance: Instance): Sign | undefined {
  const gate = findCondition(instance.status?.conditions, 'GuestHealthy');
  return gate?.status === 'False' ? { condition: gate, why: gate.message } : undefined;
}

function readinessLost(instance: Instance): Sign | undefined {
  const status = instance.status;
  const wasReady = !!status?.firstReadyAt || !!status?.topology;
  const ready = findCondition(status?.conditions, 'Ready');
  if (status?.phase !== 'Provisioning' || !wasReady || ready?.status !== 'False') return undefined;
  // A resume has a deadline of its own (docs/reference/instances.md#hibernation).
  if (resumeUnderWay(status) !== undefined) return undefined;
  return { condition: ready, why: `not Ready since it was: ${ready.reason}: ${ready.message}` };
}

/**
 * Replaces a spare that has been unhealthy for longer than the grace
 * (docs/reference/instances.md#guest-health): one per pass, deleted by UID only while it is still
 * unclaimed and still failing (decided again on a live read if it changed), with a Warning Event
 * that says which gate; the pool then makes its successor. A spare whose certificates would not
 * outlive the pool's leases fails its certificates gate, so it is replaced well before they
 * expire. Otherwise: when the next spare's grace ends, if one is failing.
 */
export async function replaceUnhealthySpare(
  ports: ControllerPorts,
  instances: readonly Instance[],
  leases: readonly Lease[],
  graceMs: number,
  context: ReconcileContext,
): Promise<ReconcileResult | undefined> {
  const now = ports.clock.now();
  let soonest = Infinity;
  for (const spare of instances) {
    if (spare.metadata.deletionTimestamp || isClaimed(spare, leases)) continue;
    const sign = unhealthy(spare);
    if (!sign) continue;
    if (now < sign.since + graceMs) {
      soonest = Math.min(soonest, sign.since + graceMs);
      continue;
    }
    const stillUnhealthy = (live: Instance): boolean =>
      unhealthy(live) !== undefined && !isClaimed(live, leases);
    const outcome = await deleteInstanceIf(ports.client, spare, stillUnhealthy);
    if (outcome !== 'deleted') continue;
    context.logger.warn({ instance: spare.metadata.name }, 'Deleted unhealthy spare to replace it');
    void ports.events.record(
      spare,
      'Warning',
      PoolEvent.UnhealthySpareReplaced,
      `Deleted spare ClusterInstance ${spare.metadata.name} to replace it: unhealthy for longer than ${formatGoDuration(graceMs)} (pool.unhealthySpareGrace): ${sign.why}`,
    );
    return {};
  }
  return soonest === Infinity ? undefined : { requeueAt: soonest };
}
