import { findCondition } from '../../api/conditions.js';
import type { CRCBundle } from '../../api/resources.js';
import { BUNDLES } from '../../api/resources.js';
import { MAX_PREPARING_BUNDLES_SETTING } from '../../crc-bounds.js';
import type { KubeClient } from '../../kube/kube-client.js';
import type { CacheReader } from '../../runtime/cache.js';
import type { WatchSpec } from '../../runtime/manager.js';
import { PHASE, READY_REASON } from './bundle-conditions.js';

/** A Pending bundle that waits for the admin's cap on bundles prepared at once. */
const waitingForSlot = (bundle: CRCBundle): boolean =>
  bundle.status?.phase === PHASE.pending &&
  findCondition(bundle.status.conditions, 'Ready')?.reason === READY_REASON.waitingForPreparation;

/** A bundle that stops preparing frees a slot: the ones waiting for one go again. */
export function freedSlots(cache: CacheReader): WatchSpec {
  const bundles = cache.view<CRCBundle>(BUNDLES);
  return {
    type: BUNDLES,
    mapChange: (previous, current) =>
      (previous as CRCBundle | undefined)?.status?.phase === PHASE.preparing &&
      (current as CRCBundle | undefined)?.status?.phase !== PHASE.preparing
        ? bundles.list(undefined, waitingForSlot).map((b) => b.metadata.name)
        : [],
  };
}

/**
 * The admin's cap on CRCBundles prepared at once (--max-preparing-bundles): each holds a golden
 * and a scratch volume and downloads gigabytes. A bundle starts only while fewer are Preparing
 * (read live, so a lagging cache cannot let one more in); the others wait in Pending and start
 * when one finishes. Within this process, starts under way count too: two passes cannot both
 * take the last slot.
 */
export class PreparationSlots {
  private readonly starting = new Set<string>();

  constructor(
    private readonly client: KubeClient,
    /** The cap (--max-preparing-bundles). */
    private readonly max: number,
    private readonly accept: (bundle: CRCBundle) => boolean,
  ) {}

  /** A slot for the bundle (release it once its phase is written), or why it waits. */
  async take(bundle: CRCBundle): Promise<{ release: () => void } | { waiting: string }> {
    const { max } = this;
    const name = bundle.metadata?.name ?? '';
    const bundles = await this.client.list<CRCBundle>(BUNDLES);
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
        waiting: `${busy.size} CRCBundle(s) are being prepared (${[...busy].join(', ')}), as many as ${MAX_PREPARING_BUNDLES_SETTING} allows (${max}); this one starts when one of them is done`,
      };
    this.starting.add(name);
    return { release: () => this.starting.delete(name) };
  }
}
