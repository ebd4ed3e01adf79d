import { findCondition } from '../../api/conditions.js';
import { parseGoDuration } from '../../../client/api/duration.js';
import type { ClusterInstance } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import { isConflict, isNotFound, orUndefined } from '../../../client/kube/api-error.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { byCreation, claimedInstances } from '../binding/binding-model.js';
import type { PoolAccounting } from './pool-accounting.js';
import type { Pool } from './pool-conditions.js';
import { PoolEvent } from './pool-conditions.js';

type PowerState = NonNullable<ClusterInstance['spec']['powerState']>;

/** What a pass of the hibernation rule did: asked one spare to change, or when to look again. */
export type HibernationStep = { changed: true } | { changed: false; result: ReconcileResult };

/**
 * Since when a running spare is idle: it became Ready (after provisioning or a resume), else
 * it was created.
 */
export function idleSince(instance: Instance): number {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  const at = Date.parse(ready?.status === 'True' ? (ready.lastTransitionTime ?? '') : '');
  return Number.isNaN(at) ? Date.parse(instance.metadata.creationTimestamp ?? '') : at;
}

/**
 * The pool's hibernation rule (docs/reference/kinds.md#hibernation), at most one request per
 * pass: `runningSpares` of the unclaimed Ready spares run; a running spare idle for
 * `hibernateAfter` is asked to hibernate while more than that run, and a hibernated one to run
 * again while fewer do. A pool without spec.hibernation keeps every spare running (it asks any
 * spare left hibernated by an earlier setting to run). The instance controller does the rest.
 */
export async function balanceHibernation(
  ports: ControllerPorts,
  pool: Pool,
  seen: { accounting: PoolAccounting; instances: readonly Instance[]; leases: readonly Lease[] },
  context: ReconcileContext,
  now: number,
): Promise<HibernationStep> {
  const claimed = claimedInstances(seen.instances, seen.leases);
  const spare = (i: Instance): boolean =>
    !i.metadata.deletionTimestamp && !claimed.has(i.metadata.name);
  const stopping = seen.instances
    .filter((i) => spare(i) && i.spec.powerState === 'Hibernating')
    .sort(byCreation);
  const running = seen.accounting.available.filter((i) => i.spec.powerState !== 'Hibernating');
  const settings = pool.spec.hibernation;
  const runningSpares = seen.accounting.runningSpares ?? Infinity;
  const resume = stopping[0];
  if (running.length < runningSpares && resume) {
    const changed = await askPower(ports, pool, resume, 'Running', context);
    return changed ? { changed } : { changed, result: {} };
  }
  const afterMs = settings ? parseGoDuration(settings.hibernateAfter) : undefined;
  if (!afterMs || running.length <= runningSpares) return { changed: false, result: {} };
  const idle = [...running].sort((a, b) => idleSince(a) - idleSince(b));
  const longest = idle[0]!;
  const dueAt = idleSince(longest) + afterMs;
  if (now < dueAt) return { changed: false, result: { requeueAt: dueAt } };
  const changed = await askPower(ports, pool, longest, 'Hibernating', context);
  return changed ? { changed } : { changed, result: {} };
}

/**
 * Writes spec.powerState with the resourceVersion the decision was made on: an instance claimed
 * (or changed) since is not touched, and its event brings the next pass.
 */
async function askPower(
  ports: ControllerPorts,
  pool: Pool,
  instance: Instance,
  powerState: PowerState,
  context: ReconcileContext,
): Promise<boolean> {
  const written = await orUndefined(
    ports.client.update<ClusterInstance>(INSTANCES, {
      ...instance,
      spec: { ...instance.spec, powerState },
    }),
    isConflict,
    isNotFound,
  );
  if (!written) return false;
  const name = instance.metadata.name;
  const verb = powerState === 'Hibernating' ? 'Hibernating' : 'Resuming';
  context.logger.info({ instance: name, powerState }, `${verb} a spare of the pool`);
  void ports.events.record(
    pool,
    'Normal',
    powerState === 'Hibernating' ? PoolEvent.SpareHibernating : PoolEvent.SpareResuming,
    powerState === 'Hibernating'
      ? `Hibernating idle spare ${name} (spec.hibernation keeps ${pool.spec.hibernation?.runningSpares ?? 0} running)`
      : `Resuming hibernated spare ${name} to keep the pool's running spares`,
  );
  return true;
}
