import { setTimeout as delay } from 'node:timers/promises';
import { SeededRandom } from '../../support/seeded-random.js';
import type { FaultKind, PlannedFault } from '../soak-schedule.js';
import { FAULT_KINDS } from '../soak-schedule.js';
import type { FaultContext } from './fault-table.js';
import { FAULTS } from './fault-table.js';

/** What became of the faults of one kind. */
export interface FaultCounts {
  injected: number;
  /** Nothing to act on at the time (no running VMI, say), or one of the kind still lasting. */
  skipped: number;
  /** The injection itself failed (logged). */
  errors: number;
}

/** Every kind, none injected yet. */
export function noFaults(): Record<FaultKind, FaultCounts> {
  return Object.fromEntries(
    FAULT_KINDS.map((kind) => [kind, { injected: 0, skipped: 0, errors: 0 }]),
  ) as Record<FaultKind, FaultCounts>;
}

/**
 * Injects the planned faults at their times, each in the background so that a lasting one (a
 * drain, a GitHub outage) does not hold back the next; a kind still lasting is not injected again.
 */
export class FaultInjector {
  readonly counts = noFaults();
  private readonly lasting = new Set<FaultKind>();
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(
    private readonly context: FaultContext,
    private readonly startedAt: number,
  ) {}

  /** Injects every fault of the plan whose time comes before stop(); resolves once all have ended. */
  async run(plan: readonly PlannedFault[]): Promise<void> {
    for (const fault of plan) {
      const wait = fault.atMs - (Date.now() - this.startedAt);
      if (wait > 0)
        await delay(wait, undefined, { signal: this.stopping.signal }).catch(() => undefined);
      if (this.stopping.signal.aborted) break;
      this.inject(fault);
    }
    await Promise.all(this.running);
  }

  stop(): void {
    this.stopping.abort();
  }

  private inject(fault: PlannedFault): void {
    const counts = this.counts[fault.kind];
    if (this.lasting.has(fault.kind)) {
      counts.skipped++;
      return;
    }
    this.lasting.add(fault.kind);
    const began = `${Math.round((Date.now() - this.startedAt) / 1000)}s`;
    const done = FAULTS[fault.kind](this.context, fault, new SeededRandom(fault.seed))
      .then((what) => {
        if (what) counts.injected++;
        else counts.skipped++;
        this.context.log(
          `fault ${fault.kind} from ${began}: ${what ?? 'nothing to act on, skipped'}`,
        );
      })
      .catch((error: Error) => {
        counts.errors++;
        this.context.log(
          `fault ${fault.kind} from ${began} could not be injected: ${error.message}`,
        );
      })
      .finally(() => {
        this.lasting.delete(fault.kind);
        this.running.delete(done);
      });
    this.running.add(done);
  }
}
