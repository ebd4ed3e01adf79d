import type { Stored } from '../../../kube/objects.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { Step } from '../../../reconcile/step-list.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { PlatformObject } from '../core/platform-object.js';
import type { InstanceTimings } from '../core/timings.js';
import type { GuestApiChecks } from '../core/guest-api-checks.js';
import type { HcpPlacement } from './hcp-placement.js';

/**
 * What every step of one hcp pass works with: the instance engine's API and timings, the
 * instance's objects under the hcp ownership rule, the pass's status draft and its context. What
 * the steps learn is handed on by the step list, not kept here.
 */
export interface HcpPass {
  readonly api: InstanceApi;
  readonly timings: InstanceTimings;
  /** The guest API readiness check, off the worker. */
  readonly guestApi: GuestApiChecks;
  readonly objects: InstanceObjects;
  readonly draft: InstanceStatusDraft;
  readonly context: ReconcileContext;
}

/** What the steps of an hcp pass hand on: each made by one step, and read by steps after it. */
export interface HcpHandOn {
  /** Where the HostedCluster lives, as recorded. */
  placement: HcpPlacement;
  /** The names of the pull secret and of the workers' SSH key Secret (if any) it is made with. */
  pullSecret: string;
  sshKey: string | undefined;
  /** The API host, and the recorded `https://<host>` endpoint. */
  hostname: string;
  apiEndpoint: string;
  /** The KAS serving certificate: the published kubeconfig's CA. */
  caPem: string;
  hostedCluster: Stored<PlatformObject>;
  /** The NodePool as it was before this pass (none when the pass created it). */
  nodePool: PlatformObject | undefined;
  /** HyperShift's admin kubeconfig, and the access published from it. */
  admin: string;
  access: GuestAccess;
}

/** An hcp step that reads the hand-on fields `Reads` and makes `Makes`. */
export type HcpStep<
  Reads extends keyof HcpHandOn = never,
  Makes extends keyof HcpHandOn = never,
> = Step<Pick<HcpHandOn, Reads>, Pick<HcpHandOn, Makes>>;
