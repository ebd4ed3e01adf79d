import { SeededRandom } from '../../../dev/support/seeded-random.js';
import { draw, TOPOLOGY_TIMES, type Topology } from './topology-times.js';

/** Where an instance's provisioning and teardown times come from, in simulated seconds. */
export interface InstanceTimes {
  provisionSeconds(): number;
  teardownSeconds(): number;
}

/**
 * The n-th instance created provisions in the n-th draw, the n-th torn down takes the n-th
 * draw: one seeded stream per step, so that the simulation and the replay on the real operator,
 * which create and delete their instances in nearly the same order, draw the same times
 * (docs/supply-benchmark.md#the-replay).
 */
export function drawnTimes(topology: Topology, seed: number): InstanceTimes {
  const provision = new SeededRandom(seed);
  const teardown = new SeededRandom(seed + 1);
  const times = TOPOLOGY_TIMES[topology];
  return {
    provisionSeconds: () => draw(provision, times.provision),
    teardownSeconds: () => draw(teardown, times.teardown),
  };
}
