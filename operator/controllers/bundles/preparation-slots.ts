import { findCondition } from '../../api/conditions.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import { MAX_BUILDING_BUNDLES_SETTING, MAX_PREPARING_BUNDLES_SETTING } from '../../crc-bounds.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { WatchSpec } from '../../runtime/manager.js';
import { PHASE, READY_REASON } from './bundle-conditions.js';

/** Whether a bundle is a build (spec.build) rather than a download. */
export const isBuild = (bundle: CRCBundle | undefined): boolean => !!bundle?.spec?.build;

/** One of the admin's caps on bundles in Preparing at once, and how its wait reads. */
export interface SlotKind {
  /** The bundles this cap counts. */
  counts: (bundle: CRCBundle) => boolean;
  /** The Ready reason of a bundle that waits for a slot of this kind. */
  waitingReason: string;
  /** The flag (and variable) that sets it. */
  setting: string;
  /** "CRCBundle(s) are being prepared", as the waiting message says it. */
  busy: string;
}

/** Downloads (--max-preparing-bundles): each holds a golden and a scratch volume and downloads gigabytes. */
export const DOWNLOAD_SLOTS: SlotKind = {
  counts: (bundle) => !isBuild(bundle),
  waitingReason: READY_REASON.waitingForPreparation,
  setting: MAX_PREPARING_BUNDLES_SETTING,
  busy: 'CRCBundle(s) are being prepared',
};

/** Builds (--max-building-bundles): each runs a VM of several cores and GiB for hours. */
export const BUILD_SLOTS: SlotKind = {
  counts: isBuild,
  waitingReason: READY_REASON.waitingForBuildSlot,
  setting: MAX_BUILDING_BUNDLES_SETTING,
  busy: 'CRCBundle build(s) are running',
};

/** A Pending bundle that waits for a slot of this kind. */
const waitingFor = (kind: SlotKind) => (bundle: CRCBundle) =>
  kind.counts(bundle) &&
  bundle.status?.phase === PHASE.pending &&
  findCondition(bundle.status.conditions, 'Ready')?.reason === kind.waitingReason;

/**
 * A bundle of this kind that stops preparing frees a slot: the ones of the kind waiting for one
 * go again (a download never wakes a build, nor a build a download).
 */
export function freedSlots(cache: CacheReader, kind: SlotKind): WatchSpec {
  const bundles = cache.view<CRCBundle>(BUNDLES);
  return {
    type: BUNDLES,
    mapChange: (previous, current) => {
      const was = previous as CRCBundle | undefined;
      if (!was || !kind.counts(was) || was.status?.phase !== PHASE.preparing) return [];
      if ((current as CRCBundle | undefined)?.status?.phase === PHASE.preparing) return [];
      return bundles.list(undefined, waitingFor(kind)).map((b) => b.metadata.name);
    },
  };
}

/**
 * One of the admin's caps on CRCBundles in Preparing at once: downloads
 * (--max-preparing-bundles) or builds (--max-building-bundles), each counted by the controller of
 * its kind. A bundle starts only while fewer of its kind are Preparing (read live, so a lagging
 * cache cannot let one more in); the others wait in Pending and start when one of their kind
 * finishes. Within this process, starts under way count too: two passes cannot both take the last
 * slot.
 */
export class PreparationSlots {
  private readonly starting = new Set<string>();

  constructor(
    private readonly client: KubeClient,
    private readonly kind: SlotKind,
    /** The cap (--max-preparing-bundles or --max-building-bundles). */
    private readonly max: number,
    private readonly accept: (bundle: CRCBundle) => boolean,
  ) {}

  /** A slot for the bundle (release it once its phase is written), or why it waits. */
  async take(bundle: CRCBundle): Promise<{ release: () => void } | { waiting: string }> {
    const { kind, max } = this;
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
