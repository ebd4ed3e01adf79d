import { useWorld } from '../support/world.js';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createPullSecret } from '../support/pull-secret.js';
import { compareReplay } from '../support/supply/replay-agreement.js';
import { ReplayDelays } from '../support/supply/replay-delays.js';
import { runReplay } from '../support/supply/replay-driver.js';
import { replayOperatorConfig } from '../support/supply/replay-operator.js';
import { planTimes, simulateSlice, type ReplayPlan } from '../support/supply/replay-plan.js';

/**
 * Five leases, three at once on a pool of two spares: two bind at once, the others wait for new
 * instances, whose HostedClusters the simulated HyperShift makes Available a drawn provisioning
 * time (compressed 200×: seconds) after they appear.
 */
const at = (seconds: number, holdSeconds = 300): ReplayPlan['slice']['lines'][number] => ({
  at: seconds,
  pool: 'hcp-pool',
  version: '',
  holdSeconds,
});
const plan: ReplayPlan = {
  seed: 7,
  slice: {
    pool: 'hcp-pool',
    fromSeconds: 0,
    durationSeconds: 600,
    lines: [at(0), at(0), at(0), at(60), at(120)],
  },
  compression: 200,
  pool: { name: 'hcp-pool', minSize: 0, maxSize: 8, warmSpares: 2 },
};
const delays = new ReplayDelays(planTimes(plan), plan.compression);
const world = useWorld({
  namespace: 'replay-harness',
  enabled: true,
  platform: { hcp: true, hcpDelays: delays.delays },
  operator: { config: replayOperatorConfig(plan) },
});
const { ns } = world;

describe('the replay harness', () => {
  beforeAll(() => createPullSecret(ns.api, ns.name));

  it('records every lease Bound, deletes each after its hold, and computes the figures', async () => {
    const replay = await runReplay({
      api: ns.api,
      namespace: ns.name,
      plan,
      delays,
      warmUpTimeoutMs: 60_000,
      graceMs: 60_000,
      untilReleased: true,
    });
    for (const lease of replay.leases) {
      expect(lease.boundMs).toBeGreaterThanOrEqual(lease.createdMs!);
      expect(lease.deletedMs! - lease.boundMs!).toBeGreaterThanOrEqual(lease.holdMs);
    }
    const { figures } = replay;
    expect(figures.leases).toBe(5);
    // Two of the three first leases found a Ready spare; the third waited at least the shortest
    // of the drawn provisioning times of the instances made for the first three.
    const times = planTimes(plan);
    const shortest = Math.min(...[0, 1, 2].map(() => times.provisionSeconds()));
    const firstWaits = replay.leases
      .slice(0, 3)
      .map((l) => ((l.boundMs! - l.createdMs!) / 1000) * plan.compression)
      .sort((a, b) => a - b);
    expect(firstWaits[2]).toBeGreaterThanOrEqual(shortest);
    // The two leased and the two made at once for the spares, at least.
    expect(figures.peakInstances).toBeGreaterThanOrEqual(4);
    expect(figures.idleSpareHours).toBeGreaterThan(0);
    const agreement = compareReplay(simulateSlice(plan), figures);
    expect(agreement.figures.map((f) => f.figure)).toEqual([
      'p50WaitSeconds',
      'p95WaitSeconds',
      'idleSpareHours',
      'peakInstances',
    ]);
    expect(Number.isFinite(agreement.agreesWithinPercent)).toBe(true);
  });
});
