import { CONFIG_MAPS, JOBS, PVCS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../../client/api/resources.js';
import { carriesScope } from '../../operator-scope.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { BundleControllerOptions, BundleSettings } from '../bundles/bundle-settings.js';
import {
  DOWNLOAD_SLOTS,
  freedSlots,
  isBuild,
  PreparationSlots,
} from '../bundles/preparation-slots.js';
import { DownloadSource, PREP_RETRY_BACKOFF } from './download-source.js';

export { PREP_RETRY_BACKOFF };
export type { BundleControllerOptions, BundleSettings };

/**
 * The CRCBundle controller of downloads (docs/reference/kinds.md#bundle-reconcile): a bundle with
 * spec.version gets a published CRC bundle downloaded into its golden disk (DownloadSource).
 * Level-based, retried with backoff, prepared again when its golden disk goes; no finalizer:
 * everything it has is owned by the bundle and garbage-collected with it. Bundles with spec.build
 * are the build controller's (bundlebuild/; ADR 0042): spec.build can be neither added nor removed,
 * so each bundle has one of the two for good.
 */
export class BundleController {
  private readonly accept: (bundle: CRCBundle) => boolean;
  private readonly download: DownloadSource;

  constructor(
    private readonly ports: ControllerPorts,
    settings: BundleSettings,
    options: BundleControllerOptions = {},
  ) {
    this.accept = (bundle) => carriesScope(settings.scope, bundle);
    const slots = new PreparationSlots(
      ports.client,
      DOWNLOAD_SLOTS,
      settings.crc.maxPreparing,
      this.accept,
    );
    this.download = new DownloadSource(ports, settings, slots, options);
  }

  registration(): ControllerRegistration {
    return {
      name: 'crcbundle',
      forType: BUNDLES,
      owns: [PVCS, JOBS, SECRETS, CONFIG_MAPS],
      watches: [freedSlots(this.ports.cache, DOWNLOAD_SLOTS)],
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const bundle = (await this.ports.cache.read<CRCBundle>(BUNDLES)).get(key);
    if (!bundle) this.download.forget(key);
    if (!bundle || isBuild(bundle) || !this.accept(bundle)) return {};
    if (bundle.metadata.deletionTimestamp) return {};
    return this.download.reconcile(bundle, context);
  }
}
