import { findCondition } from '../../api/conditions.js';
import type { CRCBundle } from '../../api/resources.js';
import { BUNDLES } from '../../api/resources.js';
import { MAX_BUILDING_BUNDLES_SETTING, MAX_PREPARING_BUNDLES_SETTING } from '../../crc-bounds.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { WatchSpec } from '../../runtime/manager.js';
import { PHASE, READY_REASON } from './bundle-conditions.js';

/** Whether a bundle is a build (spec.build) rather than a download. */
const isBuild = (bundle: CRCBundle | undefined): boolean => !!bundle?.spec?.build;

/** The waiting reason of each kind of bundle, by whether it is a build. */
const waitingReason = (build: boolean): string =>
  build ? READY_REASON.waitingForBuildSlot : READY_REASON.waitingForPreparation;

/** A Pending bundle that waits for the admin's cap on its kind (downloads or builds). */
const waitingForSlot = (build: boolean) => (bundle: CRCBundle) =>
  isBuild(bundle) === build &&
  bundle.status?.phase === PHASE.pending &&
  findCondition(bundle.status.conditions, 'Ready')?.reason === waitingReason(build);

/**
 * A bundle that stops preparing frees a slot of its kind: the ones of that kind waiting for one
 * go again (a download never wakes a build, nor a build a download).
 */
export function freedSlots(cache: CacheReader): WatchSpec {
  const bundles = cache.view<CRCBundle>(BUNDLES);
  return {
    type: BUNDLES,
    mapChange: (previous, current) => {
      const was = previous as CRCBundle | undefined;
      if (was?.status?.phase !== PHASE.preparing) return [];
      if ((current as CRCBundle | undefined)?.status?.phase === PHASE.preparing) return [];
      return bundles.list(undefined, waitingForSlot(isBuild(was))).map((b) => b.metadata.name);
    },
  };
}

/** One of the admin's caps on bundles in Preparing at once, and how its wait reads. */
interface SlotKind {
  /** The bundles this cap counts. */
  counts: (bundle: CRCBundle) => boolean;
  /** The flag (and variable) that sets it. */
  setting: string;
  /** "CRCBundle(s) are being prepared", as the waiting message says it. */
  busy: string;
}

/** Downloads: each holds a golden and a scratch volume and downloads gigabytes. */
const DOWNLOADS: SlotKind = {
  counts: (bundle) => !isBuild(bundle),
  setting: MAX_PREPARING_BUNDLES_SETTING,
  busy: 'CRCBundle(s) are being prepared',
};

/** Builds: each runs a VM of several cores and GiB for hours. */
const BUILDS: SlotKind = {
  counts: isBuild,
  setting: MAX_BUILDING_BUNDLES_SETTING,
  busy: 'CRCBundle build(s) are running',
};

/**
 * The admin's caps on CRCBundles in Preparing at once, one for downloads
 * (--max-preparing-bundles) and one for builds (--max-building-bundles): a bundle starts only
 * while fewer of its kind are Preparing (read live, so a lagging cache cannot let one more in);
 * the others wait in Pending and start when one of their kind finishes. Within this process,
 * starts under way count too: two passes cannot both take the last slot.
 */
export class PreparationSlots {
  private readonly starting = new Set<string>();

  constructor(
    private readonly client: KubeClient,
    /** The caps (--max-preparing-bundles, --max-building-bundles). */
    private readonly max: { downloads: number; builds: number },
    private readonly accept: (bundle: CRCBundle) => boolean,
  ) {}

  /** A slot for the bundle (release it once its phase is written), or why it waits. */
  async take(bundle: CRCBundle): Promise<{ release: () => void } | { waiting: string }> {
    const kind = isBuild(bundle) ? BUILDS : DOWNLOADS;
    const max = isBuild(bundle) ? this.max.builds : this.max.downloads;
    const name = bundle.metadata?.name ?? '';
    const bundles = (await this.client.list<CRCBundle>(BUNDLES)).filter(kind.counts);
    const existing = new Set(bundles.map((b) => b.metadata.name));
    // Starts under way count while their bundle exists: a pass over a bundle deleted meanwhile
    // holds no slot.
    const busy = new Set([
      ...bundles
        .filter((b) => this.accept(b) && b.status?.phase === PHASE.preparing)
        .map((b) => b.metadata.name),
      ...[...this.starting].filter((starting) => existing.has(starting)),
    ]);
    busy.delete(name);
    if (busy.size >= max)
      return {
        waiting: `${busy.size} ${kind.busy} (${[...busy].join(', ')}), as many as ${kind.setting} allows (${max}); this one starts when one of them is done`,
      };
    this.starting.add(name);
    return { release: () => this.starting.delete(name) };
  }
}

export { waitingReason };
