import type { ConditionUpdate } from '../../../api/conditions.js';
import { StepFailure } from '../../../reconcile/step-errors.js';
import { CRC_BUNDLE_NOT_ALLOWED } from '../../bundle-consumers.js';

/**
 * Reasons of the instance's conditions (docs/reference/kinds.md#instance-conditions-and-reasons),
 * as constants.
 */
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
  /**
   * A kubeconfig in a Secret broke the strict reading rules (operator/kube/strict-kubeconfig.ts).
   */
  KubeconfigRejected: 'KubeconfigRejected',
  APIEndpointRouteNotAdmitted: 'APIEndpointRouteNotAdmitted',
  APIEndpointUnavailable: 'APIEndpointUnavailable',
  OCPVersionMismatch: 'OCPVersionMismatch',
  OCPVersionMatches: 'OCPVersionMatches',
  ProvisioningAuthorized: 'ProvisioningAuthorized',
  CleanupInProgress: 'CleanupInProgress',
  CleanupError: 'CleanupError',
  CleanupTimedOut: 'CleanupTimedOut',
  /** Still provisioning at its deadline (spec.provisioningTimeout). */
  ProvisioningTimedOut: 'ProvisioningTimedOut',
  // crc (docs/reference/kinds.md#instance-conditions-and-reasons,
  // docs/reference/instances.md#crc-provisioning, docs/reference/instances.md#crc-readiness)
  MissingBundleSSHKey: 'MissingBundleSSHKey',
  ResourceOwnershipConflict: 'ResourceOwnershipConflict',
  AgentJobFailed: 'AgentJobFailed',
  /** The crc-agent Job's pod did not start within instance.agentStartDeadline. */
  AgentJobNotStarted: 'AgentJobNotStarted',
  DataVolumeFailed: 'DataVolumeFailed',
  /** The root disk is still being filled; the message has CDI's phase, progress and Running. */
  DataVolumePending: 'DataVolumePending',
  /** The root disk's import or clone did not progress within instance.dataVolumeStallDeadline. */
  DataVolumeStalled: 'DataVolumeStalled',
  BootKeyUnavailable: 'BootKeyUnavailable',
  /** The boot-key binding names a VM profile this operator does not know. */
  UnknownVMProfile: 'UnknownVMProfile',
  GuestAPIUnavailable: 'GuestAPIUnavailable',
  GuestAPIReady: 'GuestAPIReady',
  CRCBackingPending: 'CRCBackingPending',
  /** The bundle's spec.consumers.namespaceSelector does not select the instance's namespace. */
  CRCBundleNotAllowed: CRC_BUNDLE_NOT_ALLOWED,
  VMIUnavailable: 'VMIUnavailable',
  /** The VMI's launcher pod fits no node: the scheduler's message. */
  VMIUnschedulable: 'VMIUnschedulable',
  VMIReplaced: 'VMIReplaced',
  VMIIdentityUnknown: 'VMIIdentityUnknown',
} as const;

/** A condition besides Ready that a pass sets (observedGeneration comes from the instance). */
export type InstanceCondition = Omit<ConditionUpdate, 'observedGeneration'>;

/**
 * A failure that marks the instance Failed with a reason
 * (docs/reference/instances.md#common-steps), and sets `conditions` that describe the failure
 * besides Ready (CRCAgent for a failed agent Job). A step's other failures (an ownership conflict
 * with the step's reason, ReconcileError) are StepFailures without such conditions.
 */
export class InstanceFailure extends StepFailure {
  override name = 'InstanceFailure';
  constructor(
    reason: string,
    message: string,
    readonly conditions: readonly InstanceCondition[] = [],
  ) {
    super(reason, message);
  }
}
