import type { StepList } from '../../../reconcile/step-list.js';
import { steps } from '../../../reconcile/step-list.js';
import type { Nothing } from '../../../reconcile/verdict.js';
import { guestNodesStep, hostedClusterStep, nodePoolStep } from './hcp-backing-steps.js';
import {
  adminKubeconfigStep,
  apiRouteStep,
  guestApiStep,
  publishedAccessStep,
  publishStep,
} from './hcp-guest-steps.js';
import {
  apiHostStep,
  placementStep,
  pullSecretStep,
  servingCertStep,
  workerSshKeyStep,
} from './hcp-input-steps.js';
import type { HcpPass } from './hcp-pass.js';

/**
 * The ensure-steps of one hcp pass, in order (docs/reference/instances.md#hcp-provisioning): the
 * placement and the API host, each recorded before anything is made from it; the HostedCluster's
 * inputs, the HostedCluster and its NodePool; HyperShift's admin kubeconfig, the API Route, and
 * the guest API answering on the external endpoint. The last step publishes the kubeconfig and
 * marks Ready. Every wait is for an event, except the guest API itself.
 */
export function hcpSteps(pass: HcpPass): StepList<Nothing, object> {
  return steps()
    .then(placementStep(pass))
    .then(pullSecretStep(pass))
    .then(workerSshKeyStep(pass))
    .then(apiHostStep(pass))
    .then(servingCertStep(pass))
    .then(hostedClusterStep(pass))
    .then(nodePoolStep(pass))
    .then(guestNodesStep(pass))
    .then(adminKubeconfigStep(pass))
    .then(apiRouteStep(pass))
    .then(publishedAccessStep())
    .then(guestApiStep(pass))
    .then(publishStep(pass));
}
