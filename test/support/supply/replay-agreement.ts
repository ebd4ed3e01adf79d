import type { SupplyFigures } from './supply-figures.js';

/**
 * The replay agrees with the simulation when every compared figure is within this share of the
 * simulation's (docs/supply-benchmark.md#tolerance).
 */
export const REPLAY_TOLERANCE_PERCENT = 25;

/**
 * Below these, a difference is measured against the floor instead of the figure itself: a wait
 * near 0 s (a bind on a Ready spare) takes the real operator a second or two, which the
 * compression turns into tens of simulated seconds.
 */
const FLOORS = { waitSeconds: 60, spareHours: 0.5, instances: 1 };

export interface ComparedFigure {
  figure: 'p50WaitSeconds' | 'p95WaitSeconds' | 'idleSpareHours' | 'peakInstances';
  simulated: number;
  replayed: number;
  /** |replayed − simulated| / max(simulated, floor), in percent. */
  percent: number;
}

export interface Agreement {
  figures: ComparedFigure[];
  /** The largest of the figures' differences, in percent. */
  agreesWithinPercent: number;
  tolerancePercent: number;
  withinTolerance: boolean;
}

/** How far the replay's figures are from the simulation's on the same slice. */
export function compareReplay(simulated: SupplyFigures, replayed: SupplyFigures): Agreement {
  const floors: Record<ComparedFigure['figure'], number> = {
    p50WaitSeconds: FLOORS.waitSeconds,
    p95WaitSeconds: FLOORS.waitSeconds,
    idleSpareHours: FLOORS.spareHours,
    peakInstances: FLOORS.instances,
  };
  const figures = (Object.keys(floors) as ComparedFigure['figure'][]).map((figure) => {
    const [s, r] = [simulated[figure], replayed[figure]];
    return {
      figure,
      simulated: s,
      replayed: r,
      percent: (100 * Math.abs(r - s)) / Math.max(Math.abs(s), floors[figure]),
    };
  });
  const agreesWithinPercent = Math.max(...figures.map((f) => f.percent));
  return {
    figures,
    agreesWithinPercent,
    tolerancePercent: REPLAY_TOLERANCE_PERCENT,
    withinTolerance: agreesWithinPercent <= REPLAY_TOLERANCE_PERCENT,
  };
}
