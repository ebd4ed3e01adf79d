import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterInstance } from '../../api/resources.js';
import { INSTANCES } from '../../api/resources.js';
import { sameContent } from '../../kube/objects.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { Manager } from '../../runtime/manager.js';
import { observeProvisioned } from './instance-metrics.js';

export type InstanceStatus = NonNullable<ClusterInstance['status']>;
type Phase = NonNullable<InstanceStatus['phase']>;

/** Reasons of the instance's conditions (spec §1.3), as constants. */
export const Reason = {
  BackingResourcesAvailable: 'BackingResourcesAvailable',
  ReconcileError: 'ReconcileError',
  InvalidPullSecret: 'InvalidPullSecret',
  InvalidWorkerSSHKey: 'InvalidWorkerSSHKey',
  APIEndpointConflict: 'APIEndpointConflict',
  HCPPlacementConflict: 'HCPPlacementConflict',
  HostedClusterMissing: 'HostedClusterMissing',
  HostedClusterNotAvailable: 'HostedClusterNotAvailable',
  NodePoolNotReady: 'NodePoolNotReady',
  KubeconfigUnavailable: 'KubeconfigUnavailable',
  /** A kubeconfig in a Secret broke the strict reading rules (operator/kube/strict-kubeconfig.ts). */
  KubeconfigRejected: 'KubeconfigRejected',
  APIEndpointRouteNotAdmitted: 'APIEndpointRouteNotAdmitted',
  APIEndpointUnavailable: 'APIEndpointUnavailable',
  OCPVersionMismatch: 'OCPVersionMismatch',
  OCPVersionMatches: 'OCPVersionMatches',
  ProvisioningAuthorized: 'ProvisioningAuthorized',
  CleanupInProgress: 'CleanupInProgress',
  CleanupError: 'CleanupError',
  CleanupTimedOut: 'CleanupTimedOut',
  // crc (spec §1.3, §2.3.2, §2.3.3)
  MissingBundleSSHKey: 'MissingBundleSSHKey',
  ResourceOwnershipConflict: 'ResourceOwnershipConflict',
  AgentJobFailed: 'AgentJobFailed',
  DataVolumeFailed: 'DataVolumeFailed',
  BootKeyUnavailable: 'BootKeyUnavailable',
  GuestAPIUnavailable: 'GuestAPIUnavailable',
  GuestAPIReady: 'GuestAPIReady',
  CRCBackingPending: 'CRCBackingPending',
  VMIUnavailable: 'VMIUnavailable',
  VMIReplaced: 'VMIReplaced',
  VMIIdentityUnknown: 'VMIIdentityUnknown',
} as const;

/**
 * A failure that marks the instance Failed with a reason (spec §2.3.1 "mark failed"), and sets
 * `conditions` that describe the failure besides Ready (CRCAgent for a failed agent Job).
 */
export class InstanceFailure extends Error {
  override name = 'InstanceFailure';
  constructor(
    readonly reason: string,
    message: string,
    readonly conditions: readonly Omit<ConditionUpdate, 'observedGeneration'>[] = [],
  ) {
    super(message);
  }
}

/**
 * The status an instance pass builds up, written once at the end and only when it changed. It
 * starts from the cached status, so the lease controller's claim (status.leaseRef) is kept, and
 * the write carries the resourceVersion it was read with.
 */
export class InstanceStatusDraft {
  readonly status: InstanceStatus;

  constructor(
    readonly instance: ClusterInstance,
    private readonly now: number,
  ) {
    this.status = structuredClone(instance.status ?? {});
  }

  condition(update: Omit<ConditionUpdate, 'observedGeneration'>): this {
    this.status.conditions = setCondition(
      this.status.conditions,
      { ...update, observedGeneration: this.instance.metadata?.generation },
      this.now,
    );
    return this;
  }

  /** Drops a condition (CRCAgent once the instance is Ready or readiness is lost). */
  removeCondition(type: string): this {
    const kept = this.status.conditions?.filter((c) => c.type !== type);
    if (kept && kept.length !== this.status.conditions!.length) this.status.conditions = kept;
    return this;
  }

  phase(phase: Phase): this {
    this.status.phase = phase;
    this.status.observedGeneration = this.instance.metadata?.generation;
    return this;
  }

  /** Phase Provisioning, Ready=False with why. */
  waiting(reason: string, message: string): this {
    return this.phase('Provisioning').condition({
      type: 'Ready',
      status: 'False',
      reason,
      message,
    });
  }

  /** Phase Failed, Ready=False with why, and the other conditions that describe the failure. */
  failed(
    reason: string,
    message: string,
    conditions: readonly Omit<ConditionUpdate, 'observedGeneration'>[] = [],
  ): this {
    for (const condition of conditions) this.condition(condition);
    return this.phase('Failed').condition({ type: 'Ready', status: 'False', reason, message });
  }

  /** Phase Ready with the endpoint, version and Secret the lease controller hands out (spec §2.3.1 "mark ready"). */
  ready(details: {
    ocpVersion: string;
    apiEndpoint: string;
    kubeconfig: { secretName: string; sha256: string };
  }): this {
    const wanted = this.instance.spec.template.ocpVersion;
    const mismatch = !!wanted && !!details.ocpVersion && wanted !== details.ocpVersion;
    this.phase('Ready');
    this.status.ocpVersion = details.ocpVersion;
    this.status.topology = this.instance.spec.type;
    this.status.apiEndpoint = details.apiEndpoint;
    this.status.kubeconfigSecretRef = { name: details.kubeconfig.secretName };
    this.status.kubeconfigSHA256 = details.kubeconfig.sha256;
    this.condition({
      type: 'VersionMismatch',
      status: mismatch ? 'True' : 'False',
      reason: mismatch ? Reason.OCPVersionMismatch : Reason.OCPVersionMatches,
      message: mismatch
        ? `requested OCPVersion "${wanted}" but observed "${details.ocpVersion}"`
        : 'observed OCPVersion matches template',
    });
    return this.condition({
      type: 'Ready',
      status: 'True',
      reason: Reason.BackingResourcesAvailable,
      message: 'Guest cluster is provisioned and kubeconfig is available',
    });
  }

  /**
   * Whether the status differs in content. Key order does not count: the apiserver returns keys
   * sorted, and treats a write that changes nothing as a no-op that no watch event reports.
   */
  get changed(): boolean {
    return !sameContent(this.instance.status ?? {}, this.status);
  }
}

/** Not Ready for a reason someone must look into, though the instance has not failed. */
const WARNING_REASONS = new Set<string>([Reason.KubeconfigRejected]);

/**
 * Writes the draft when it changed, and tells people about Ready transitions with an Event.
 * Returns the instance as written (or as it was).
 */
export async function writeInstanceStatus(
  manager: Manager,
  draft: InstanceStatusDraft,
): Promise<ClusterInstance> {
  if (!draft.changed) return draft.instance;
  const written = await manager.client.updateStatus(INSTANCES, {
    ...draft.instance,
    status: draft.status,
  });
  if (draft.status.phase === 'Ready' && draft.instance.status?.phase !== 'Ready')
    observeProvisioned(manager, written);
  const before = findCondition(draft.instance.status?.conditions, 'Ready');
  const after = findCondition(draft.status.conditions, 'Ready');
  if (after && (before?.reason !== after.reason || before.status !== after.status)) {
    const warning = draft.status.phase === 'Failed' || WARNING_REASONS.has(after.reason);
    void manager.events.record(
      written,
      warning ? 'Warning' : 'Normal',
      after.reason,
      after.message,
    );
  }
  return written;
}

/** A Normal Kubernetes Event and a log line for a transition a person cares about. */
export function announce(
  manager: Manager,
  instance: ClusterInstance,
  reason: string,
  message: string,
  context: ReconcileContext,
): void {
  context.logger.info({ reason }, message);
  void manager.events.record(instance, 'Normal', reason, message);
}
