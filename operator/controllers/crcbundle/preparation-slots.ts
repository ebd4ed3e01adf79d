import type { CRCBundle } from '../../api/resources.js';
import { BUNDLES } from '../../api/resources.js';
import { MAX_PREPARING_BUNDLES_SETTING } from '../../crc-bounds.js';
import type { Manager } from '../../runtime/manager.js';
import { PHASE } from './bundle-conditions.js';

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
    private readonly manager: Manager,
    private readonly accept: (bundle: CRCBundle) => boolean,
  ) {}

  /** A slot for the bundle (release it once its phase is written), or why it waits. */
  async take(bundle: CRCBundle): Promise<{ release: () => void } | { waiting: string }> {
    const max = this.manager.config.crc.maxPreparing;
    const name = bundle.metadata!.name!;
    const bundles = await this.manager.client.list<CRCBundle>(BUNDLES);
    const existing = new Set(bundles.items.map((b) => b.metadata!.name!));
    // Starts under way count while their bundle exists: a pass over a bundle deleted meanwhile
    // holds no slot.
    const busy = new Set([
      ...bundles.items
        .filter((b) => this.accept(b) && b.status?.phase === PHASE.preparing)
        .map((b) => b.metadata!.name!),
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
