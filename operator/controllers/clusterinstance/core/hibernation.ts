import type { ClusterInstance } from '../../../../client/api/resources.js';
import { metaTime } from '../../../../client/kube/meta-time.js';
import { claimOf } from '../../binding/binding-model.js';
import type { InstanceStatusDraft } from './status-draft.js';

/*
 * Hibernation (docs/reference/instances.md#hibernation): a pool asks an unclaimed spare to stop
 * (spec.powerState Hibernating), a lease that resumes it asks it to run again. The instance
 * controller alone acts on the platform; these are the status transitions every topology shares.
 */

/** Reasons of the Ready condition of a hibernating or resuming instance. */
export const HibernationReason = {
  Hibernating: 'Hibernating',
  Hibernated: 'Hibernated',
  Resuming: 'Resuming',
} as const;

/**
 * Whether the instance is to be stopped: asked to, Ready or stopped already, and claimed by no
 * lease. A claimed instance runs whatever its spec says: the spec is the tenant's to write, the
 * cluster a lease holds is not to be taken away by it. One still provisioning or Failed finishes
 * that first.
 */
export function wantsHibernation(instance: ClusterInstance): boolean {
  const phase = instance.status?.phase;
  return (
    instance.spec.powerState === 'Hibernating' &&
    !claimOf(instance) &&
    (phase === 'Ready' || phase === 'Hibernated')
  );
}

/**
 * The draft of an instance being stopped: phase Hibernated at once (no lease may bind it, the
 * pool counts it as a hibernated spare), Ready False with Hibernating until the guest is stopped,
 * then Hibernated. The published kubeconfig belonged to the guest that ran (its teardown is the
 * topology's); the time the stop was first asked is kept.
 */
export function recordHibernation(
  draft: InstanceStatusDraft,
  now: number,
  progress: { stopped: boolean; message: string },
): void {
  const hibernation = draft.status.hibernation ?? {};
  if (draft.instance.status?.phase !== 'Hibernated') hibernation.hibernatedAt = metaTime(now);
  draft.status.hibernation = hibernation;
  draft.phase('Hibernated').condition({
    type: 'Ready',
    status: 'False',
    reason: progress.stopped ? HibernationReason.Hibernated : HibernationReason.Hibernating,
    message: progress.message,
  });
  draft.status.kubeconfigSecretRef = {};
}

/**
 * A hibernated instance asked to run: the resume starts now (its deadline and the fresh readiness
 * check count from here), and the topology's steps take it back to Ready.
 */
export function startResume(draft: InstanceStatusDraft, now: number): void {
  draft.status.hibernation = {
    ...draft.status.hibernation,
    resumeStartedAt: metaTime(now),
  };
  delete draft.status.hibernation.resumedAt;
  draft.waiting(HibernationReason.Resuming, 'the guest is starting again after hibernation');
}

/** The resume that started at this time, if one is under way. */
export function resumeUnderWay(status: ClusterInstance['status']): number | undefined {
  const started = Date.parse(status?.hibernation?.resumeStartedAt ?? '');
  if (Number.isNaN(started) || status?.hibernation?.resumedAt) return undefined;
  return started;
}

/** A resume that ended with the instance Ready is recorded (the resume metric reads it). */
export function finishResume(draft: InstanceStatusDraft, now: number): void {
  if (resumeUnderWay(draft.status) === undefined || draft.status.phase !== 'Ready') return;
  draft.status.hibernation = { ...draft.status.hibernation, resumedAt: metaTime(now) };
}
