import { findCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES } from '../../../client/api/resources.js';
import { isConflict, isNotFound, orUndefined } from '../../../client/kube/api-error.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Instance, Lease } from '../binding/binding-model.js';
import { byCreation, claimedInstances } from '../binding/binding-model.js';
import { handOutProblem, shortCertificates } from '../binding/hand-out-gate.js';
import { writeClaim, writeClaimReleased } from '../binding/instance-status-writes.js';
import { resumeUnderWay } from '../clusterinstance/core/hibernation.js';

/*
 * A lease that finds no running spare resumes a hibernated one
 * (docs/reference/kinds.md#hibernation): it claims it (the same compare-and-swap claim as any
 * bind), asks it to run (spec.powerState Running) and waits, with reason Resuming, until the
 * instance is Ready and its readiness gates passed again; then it binds as always.
 */

/** Hibernated spares a lease may resume, first made first: unclaimed, of the version it asks. */
export function resumableSpares(
  instances: readonly Instance[],
  leases: readonly Lease[],
  lease: Lease,
): Instance[] {
  const claimed = claimedInstances(instances, leases);
  const version = lease.spec.ocpVersion;
  return instances
    .filter(
      (i) =>
        i.status?.phase === 'Hibernated' &&
        !i.metadata.deletionTimestamp &&
        !claimed.has(i.metadata.name) &&
        (!version || i.status.ocpVersion === version),
    )
    .sort(byCreation);
}

/**
 * Claims a hibernated spare for the lease and asks it to run; undefined when someone changed it
 * first (the claim's resourceVersion did not match).
 */
export async function claimForResume(
  ports: ControllerPorts,
  lease: Lease,
  instance: Instance,
): Promise<Instance | undefined> {
  const claimed = await orUndefined(
    writeClaim(ports.client, instance, lease.metadata),
    isConflict,
    isNotFound,
  );
  if (!claimed) return undefined;
  return askToRun(ports, claimed);
}

/** spec.powerState Running on an instance the lease holds a claim on (the claim won already). */
export async function askToRun(ports: ControllerPorts, instance: Instance): Promise<Instance> {
  if (instance.spec.powerState !== 'Hibernating') return instance;
  const written = await orUndefined(
    ports.client.update<ClusterInstance>(INSTANCES, {
      ...instance,
      spec: { ...instance.spec, powerState: 'Running' },
    }),
    isConflict,
  );
  // A conflict: the next event of the instance brings the next pass, which asks again.
  return written ?? instance;
}

/** What a lease that claimed an instance for a resume does next. */
export type ResumeStep = { bind: true } | { wait: string } | { released: string };

/**
 * A claimed instance that is resuming: bound once Ready with its gates passed after the resume;
 * waiting while it boots; the claim released (the lease goes back to the queue, the pool replaces
 * the spare) when the resumed guest failed, or failed a readiness gate in a check made after the
 * resume, certificates too short for the lease included. Undefined for a claim that is no resume.
 */
export function resumeStep(
  instance: Instance,
  lease: Lease,
  pool: ClusterPool,
  gate: { now: number; maxAgeMs: number },
): ResumeStep | undefined {
  const status = instance.status;
  const started = Date.parse(status?.hibernation?.resumeStartedAt ?? '');
  if (!isResumeClaim(instance, started)) return undefined;
  const name = instance.metadata.name;
  if (status?.phase === 'Failed')
    return { released: `resumed ClusterInstance ${name} failed: ${readyWords(instance)}` };
  if (status?.phase !== 'Ready')
    return { wait: `resuming hibernated ClusterInstance ${name}: ${readyWords(instance)}` };
  const problem = handOutProblem(instance, lease, pool, gate.now, gate.maxAgeMs);
  if (!problem) return { bind: true };
  if (checkedSinceAndFailing(instance, lease, pool, { now: gate.now, started }))
    return { released: `resumed ClusterInstance ${name} cannot be handed out: ${problem}` };
  return { wait: `resumed ClusterInstance ${name} waits for its readiness gates: ${problem}` };
}

/** Hibernated, resuming, or Ready after a resume. */
function isResumeClaim(instance: Instance, started: number): boolean {
  const status = instance.status;
  if (status?.phase === 'Hibernated' || resumeUnderWay(status) !== undefined) return true;
  return !Number.isNaN(started) && status?.phase === 'Ready';
}

/**
 * A check since the resume that failed, or certificates CRC did not renew that do not outlive
 * the lease: another spare serves it better.
 */
function checkedSinceAndFailing(
  instance: Instance,
  lease: Lease,
  pool: ClusterPool,
  at: { now: number; started: number },
): boolean {
  const status = instance.status;
  const checkedAt = Date.parse(status?.guestHealth?.checkedAt ?? '');
  if (!(checkedAt >= at.started)) return false;
  const failing = findCondition(status?.conditions, 'GuestHealthy')?.status === 'False';
  return failing || !!shortCertificates(instance, lease, pool, at.now);
}

function readyWords(instance: Instance): string {
  const ready = findCondition(instance.status?.conditions, 'Ready');
  return ready ? `${ready.reason}: ${ready.message}` : 'no Ready condition yet';
}

/** Gives a resume's claim back (with the instance's resourceVersion). */
export async function releaseResumeClaim(
  ports: ControllerPorts,
  instance: Instance,
): Promise<boolean> {
  return !!(await orUndefined(writeClaimReleased(ports.client, instance), isConflict, isNotFound));
}
