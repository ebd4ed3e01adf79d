import type { StepList } from '../../../reconcile/step-list.js';
import { steps } from '../../../reconcile/step-list.js';
import type { Nothing } from '../../../reconcile/verdict.js';
import { holds, waiting } from '../../../reconcile/verdict.js';
import { Reason } from '../core/reasons.js';
import { agentStep } from './crc-agent-step.js';
import {
  apiRouteStep,
  dataVolumeStep,
  diskSourceStep,
  virtualMachineStep,
  vmiStep,
} from './crc-backing-steps.js';
import {
  agentPermissionsStep,
  guestAccessStep,
  guestApiStep,
  identitySecretStep,
  networkPolicyStep,
  publishStep,
  sshKeyStep,
} from './crc-guest-steps.js';
import {
  bootKeyStep,
  bundleConsumerStep,
  bundleKeyStep,
  endpointStep,
  pullSecretStep,
} from './crc-input-steps.js';
import type { CrcPass } from './crc-pass.js';
import { recordCrcIdentity } from './crc-records.js';
import { vmiPrecondition } from './crc-vmi.js';
import type { CrcWait } from './crc-wait.js';

/**
 * What holds before the steps of a crc pass: the identity (VM and disk names and UIDs) recorded
 * so that the ownership rule can trace dependents, and the VMI precondition (crc-vmi.ts). Their
 * errors other than an ownership conflict of the identity are retried.
 */
export function crcPreconditions(pass: CrcPass): StepList<Nothing, object, CrcWait> {
  return steps<Nothing, CrcWait>()
    .then({
      name: 'crc identity',
      conflict: Reason.ResourceOwnershipConflict,
      run: async () => {
        await recordCrcIdentity(pass.objects, pass.draft, { live: false, vmi: false });
        return holds();
      },
    })
    .then({
      name: 'VMI precondition',
      run: async () => {
        const invalid = await vmiPrecondition(pass);
        return invalid ? waiting(invalid) : holds();
      },
    });
}

/**
 * The ensure-steps of one crc pass, in order (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness): the inputs and records, the disk and VM, the agent's
 * work for the running VMI, and the guest API answering on the external endpoint. The inputs are
 * checked until the instance is Ready; what the guest needs, on every pass. The last step
 * publishes the kubeconfig and marks Ready.
 */
export function crcSteps(pass: CrcPass): StepList<Nothing, object, CrcWait> {
  return steps<Nothing, CrcWait>()
    .then(pullSecretStep(pass))
    .then(bundleKeyStep(pass))
    .then(bundleConsumerStep(pass))
    .then(bootKeyStep(pass))
    .then(endpointStep(pass))
    .then(diskSourceStep(pass))
    .then(dataVolumeStep(pass))
    .then(virtualMachineStep(pass))
    .then(vmiStep(pass))
    .then(apiRouteStep(pass))
    .then(agentPermissionsStep(pass))
    .then(identitySecretStep(pass))
    .then(sshKeyStep(pass))
    .then(networkPolicyStep(pass))
    .then(agentStep(pass))
    .then(guestAccessStep(pass))
    .then(guestApiStep(pass))
    .then(publishStep(pass));
}
