import {
  CONFIG_MAPS,
  JOBS,
  NETWORK_POLICIES,
  PODS,
  PVCS,
  SERVICES,
} from '../../../client/api/core-resources.js';
import { findCondition } from '../../api/conditions.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../../client/api/resources.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { withFinalizer, withoutFinalizer } from '../../kube/ownership.js';
import { carriesScope } from '../../operator-scope.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { PHASE } from '../bundles/bundle-conditions.js';
import { bundleNames } from '../bundles/bundle-names.js';
import { LABEL_CRC_BUNDLE } from '../bundles/bundle-owner.js';
import type { BundleControllerOptions, BundleSettings } from '../bundles/bundle-settings.js';
import {
  BUILD_SLOTS,
  freedSlots,
  isBuild,
  PreparationSlots,
} from '../bundles/preparation-slots.js';
import { CLEANED_UP, FINALIZER_BUILD_CLEANUP } from './build-conditions.js';
import type { BuildEnv } from './build-env.js';
import { writeBuild } from './build-env.js';
import { buildInputWatches } from './build-input-watches.js';
import type { Bundle } from './build-meta.js';
import { startBuild } from './build-start.js';
import { tearDownAttempt } from './build-teardown.js';
import { StageRunner } from './stage-runner.js';

export { CLEANED_UP, FINALIZER_BUILD_CLEANUP };

/** The bundle a VMI, pod or claim (KubeVirt's, the Job controller's, CDI's) works for. */
const labelled = (object: KubeObject): string[] => {
  const name = object.metadata?.labels?.[LABEL_CRC_BUNDLE];
  return name ? [name] : [];
};

/**
 * The bundle build controller (ADR 0031, ADR 0042): a CRCBundle with spec.build is one recorded
 * attempt, run stage by stage (docs/bundle-build.md#stage-map), one stage per pass. Every object
 * is recorded with its UID before it is used, so a restarted operator goes on with the same
 * attempt and its objects. A failed build stays Failed (a new recipe or a retry is a new
 * CRCBundle) and leaves nothing behind; a finalizer stops its Jobs and VMs before its storage
 * goes. Bundles without spec.build are the download controller's (crcbundle/).
 */
export class BuildController {
  private readonly accept: (bundle: CRCBundle) => boolean;
  private readonly env: BuildEnv;
  private readonly slots: PreparationSlots;
  private readonly runner: StageRunner;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: BundleSettings,
    options: BundleControllerOptions = {},
  ) {
    this.accept = (bundle) => carriesScope(settings.scope, bundle);
    this.env = { ports, settings, failures: options.failures };
    // The admin's cap on builds at once (--max-building-bundles).
    this.slots = new PreparationSlots(
      ports.client,
      BUILD_SLOTS,
      settings.crc.maxBuilding,
      this.accept,
    );
    this.runner = new StageRunner(this.env);
  }

  registration(): ControllerRegistration {
    return {
      name: 'bundlebuild',
      forType: BUNDLES,
      owns: [
        PVCS,
        JOBS,
        SECRETS,
        CONFIG_MAPS,
        VIRTUAL_MACHINES,
        DATA_VOLUMES,
        SERVICES,
        DEPLOYMENTS,
        INSTANCES,
        NETWORK_POLICIES,
      ],
      watches: [
        freedSlots(this.ports.cache, BUILD_SLOTS),
        { type: VIRTUAL_MACHINE_INSTANCES, map: labelled },
        { type: PODS, map: labelled },
        // A build's DataVolume claims are CDI's (owned by the DataVolume): the teardown waits for
        // them to go, so their deletion must bring the bundle back.
        { type: PVCS, map: labelled },
        ...buildInputWatches(this.ports.cache, this.settings.operatorNamespace),
      ],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const bundle = (await this.ports.cache.read<CRCBundle>(BUNDLES)).get(key);
    if (!bundle || !isBuild(bundle) || !this.accept(bundle)) return {};
    if (bundle.metadata.deletionTimestamp) return this.deleting(bundle, context);
    if (!bundle.metadata.finalizers?.includes(FINALIZER_BUILD_CLEANUP)) {
      await this.ports.client.update(BUNDLES, withFinalizer(bundle, FINALIZER_BUILD_CLEANUP));
      return {};
    }
    const phase = bundle.status?.phase;
    if (phase === PHASE.ready || phase === PHASE.failed) return this.settled(bundle, context);
    if (!bundle.status?.build?.attempt) return startBuild(this.env, this.slots, bundle);
    return this.runner.advance(bundle, bundle.status.build, context);
  }

  /** Ready or Failed: the attempt's work objects go (a Ready bundle keeps what it publishes). */
  private async settled(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    const attempt = bundle.status?.build?.attempt;
    if (!attempt || findCondition(bundle.status?.conditions, CLEANED_UP)?.status === 'True')
      return {};
    const names = bundleNames(bundle.metadata.name);
    const keep = new Set(
      bundle.status?.phase === PHASE.ready
        ? [names.golden, names.sshKeySecret, names.metadataConfigMap]
        : [],
    );
    const scope = { namespace: this.settings.operatorNamespace, attempt, keep };
    if (!(await tearDownAttempt(this.ports, bundle, scope, context))) return {};
    await writeBuild(this.env, bundle, bundle.status!, [
      {
        type: CLEANED_UP,
        status: 'True',
        reason: 'WorkObjectsDeleted',
        message: `the build's VMs, Jobs, work storage, credentials and validation instance are deleted${keep.size ? '; the golden disk, SSH key and metadata stay' : ''}`,
      },
    ]);
    void this.ports.events.record(
      bundle,
      'Normal',
      CLEANED_UP,
      `Build attempt ${attempt} cleaned up`,
    );
    return {};
  }

  /** Deleted: Jobs and VMs stop, then storage goes; then the finalizer lets the bundle go. */
  private async deleting(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    if (!bundle.metadata.finalizers?.includes(FINALIZER_BUILD_CLEANUP)) return {};
    const attempt = bundle.status?.build?.attempt;
    if (attempt) {
      const scope = {
        namespace: this.settings.operatorNamespace,
        attempt,
        keep: new Set<string>(),
      };
      if (!(await tearDownAttempt(this.ports, bundle, scope, context))) return {};
    }
    await this.ports.client.update(BUNDLES, withoutFinalizer(bundle, FINALIZER_BUILD_CLEANUP));
    return {};
  }
}
