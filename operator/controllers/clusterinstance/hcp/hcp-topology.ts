import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import { runSteps } from '../../../reconcile/step-list.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { InstanceTimings } from '../core/timings.js';
import type { TeardownOutcome, Topology } from '../core/topology.js';
import type { GuestApiProbe } from '../core/guest-api-probe.js';
import { guestApiProbe } from '../core/guest-api-probe.js';
import { GuestApiChecks, guestApiCheckRunner } from '../core/guest-api-checks.js';
import type { OffPathChecks } from '../../../runtime/off-path-checks.js';
import { hcpObjects } from './hcp-ownership.js';
import type { HcpPass } from './hcp-pass.js';
import { hcpSteps } from './hcp-steps.js';
import { hcpTeardown } from './hcp-teardown.js';
import { hibernateHcp } from './hcp-hibernation.js';
import { hcpWatches } from './hcp-watches.js';

export interface HcpTopologyOptions {
  /** The guest API readiness check; by default a GET of /readyz through DNS. */
  probe?: GuestApiProbe;
  /**
   * Where the probes run, off the workers and capped (guest-api-checks.ts): one for both
   * topologies, whose ends queue the instance's pass; one of its own, queuing nothing, by default.
   */
  guestChecks?: OffPathChecks<void>;
}

/**
 * The hcp topology (docs/reference/instances.md#hcp-provisioning,
 * docs/reference/instances.md#hcp-readiness, docs/reference/instances.md#deletion,
 * docs/reference/instances.md#hcp-placement-and-ownership): records a placement that collides with
 * nothing before creating anything, then builds the HostedCluster on KubeVirt, its NodePool and the
 * API Route, and publishes HyperShift's admin kubeconfig pointed at the external endpoint once the
 * guest API answers there. Every pass runs one ordered list of ensure-steps (hcp-steps.ts).
 */
export class HcpTopology implements Topology {
  readonly platformGate = { multiClusterEngine: true, wildcardRoutes: true, whenReady: false };
  private readonly guestApi: GuestApiChecks;

  constructor(
    private readonly api: InstanceApi,
    private readonly timings: InstanceTimings,
    options: HcpTopologyOptions = {},
  ) {
    this.guestApi = new GuestApiChecks(
      options.guestChecks ?? guestApiCheckRunner(() => undefined),
      options.probe ?? guestApiProbe(),
    );
  }

  watches(): WatchSpec[] {
    return hcpWatches(this.api);
  }

  async reconcile(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult> {
    const { api, timings, guestApi } = this;
    const objects = hcpObjects(api, draft.instance);
    const pass: HcpPass = { api, timings, guestApi, objects, draft, context };
    // Errors other than failures and the steps' conflicts are retried with backoff.
    const verdict = await runSteps(hcpSteps(pass), {});
    if ('fail' in verdict) throw verdict.fail;
    if ('wait' in verdict) {
      draft.waiting(verdict.wait.reason, verdict.wait.message);
      return verdict.wait.requeueAfterMs ? { requeueAfterMs: verdict.wait.requeueAfterMs } : {};
    }
    // A placement or endpoint just chosen is durable before anything that embeds it is created.
    if ('record' in verdict) draft.phase('Provisioning');
    return {};
  }

  hibernate(draft: InstanceStatusDraft, context: ReconcileContext): Promise<ReconcileResult> {
    const { api, timings, guestApi } = this;
    const objects = hcpObjects(api, draft.instance);
    return hibernateHcp({ api, timings, guestApi, objects, draft, context });
  }

  async teardown(draft: InstanceStatusDraft): Promise<TeardownOutcome> {
    const pending = await hcpTeardown(this.api, hcpObjects(this.api, draft.instance));
    return pending ? 'pending' : 'done';
  }
}
