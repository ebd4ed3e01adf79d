import {
  CONFIG_MAPS,
  JOBS,
  NETWORK_POLICIES,
  PODS,
  PVCS,
  SERVICES,
} from '../../api/core-resources.js';
import type { CRCBundle } from '../../api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../api/resources.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { KubeObject } from '../../kube/objects.js';
import { carriesScope } from '../../operator-scope.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { LABEL_CRC_BUNDLE } from './bundle-owner.js';
import type { BundleControllerOptions, BundleSettings } from './bundle-settings.js';
import { buildInputWatches } from './build/build-input-watches.js';
import { BuildSource } from './build/build-source.js';
import { DownloadSource, PREP_RETRY_BACKOFF } from './download-source.js';
import { freedSlots, PreparationSlots } from './preparation-slots.js';

export { PREP_RETRY_BACKOFF };
export type { BundleControllerOptions, BundleSettings };

/** The bundle a VMI, pod or claim (KubeVirt's, the Job controller's, CDI's) works for. */
const labelled = (object: KubeObject): string[] => {
  const name = object.metadata?.labels?.[LABEL_CRC_BUNDLE];
  return name ? [name] : [];
};

/**
 * The CRCBundle controller (docs/reference/kinds.md#bundle-reconcile): a bundle downloads a
 * published CRC bundle (spec.version, DownloadSource) or builds one in the cluster (spec.build,
 * BuildSource). Event-driven: the objects either makes are owned by the bundle, and what KubeVirt
 * and the Job controller make for them carries the bundle's label.
 */
export class BundleController {
  private readonly accept: (bundle: CRCBundle) => boolean;
  private readonly download: DownloadSource;
  private readonly build: BuildSource;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: BundleSettings,
    options: BundleControllerOptions = {},
  ) {
    this.accept = (bundle) => carriesScope(settings.scope, bundle);
    // One set of slots for both sources: each counts its own kind (preparation-slots.ts).
    const slots = new PreparationSlots(
      ports.client,
      { downloads: settings.crc.maxPreparing, builds: settings.crc.maxBuilding },
      this.accept,
    );
    this.download = new DownloadSource(ports, settings, slots, options);
    this.build = new BuildSource(ports, settings, slots, options);
  }

  registration(): ControllerRegistration {
    return {
      name: 'crcbundle',
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
        freedSlots(this.ports.cache),
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
    if (!bundle) this.download.forget(key);
    if (!bundle || !this.accept(bundle)) return {};
    if (bundle.spec.build) return this.build.reconcile(bundle, context);
    // No finalizer: everything a download has is owned by it and garbage-collected with it.
    if (bundle.metadata.deletionTimestamp) return {};
    return this.download.reconcile(bundle, context);
  }
}
