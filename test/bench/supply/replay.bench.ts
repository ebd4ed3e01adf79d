// The replay (`npm run bench:supply:replay`, docs/supply-benchmark.md#the-replay): the busiest
// hour of hcp-pool in the generated week, compressed, on the real operator and the simulated
// platform, beside the policy simulation of the same slice with the same drawn times.
import { useWorld } from '../../support/world.js';
import { percentile } from '../../support/supply/supply-figures.js';
import { TOPOLOGY_TIMES, type Duration } from '../../support/supply/topology-times.js';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../../dev/control-plane/project-root.js';
import { createPullSecret } from '../../support/pull-secret.js';
import { compareReplay } from '../../support/supply/replay-agreement.js';
import { ReplayDelays } from '../../support/supply/replay-delays.js';
import { runReplay } from '../../support/supply/replay-driver.js';
import { replayOperatorConfig } from '../../support/supply/replay-operator.js';
import { planTimes, replayPlan, simulateSlice } from '../../support/supply/replay-plan.js';
import {
  formatReplayReport,
  REPLAY_RESULT_PATH,
  reportedFigures,
  type ReplayReport,
} from '../../support/supply/replay-report.js';

function stepFigures(
  seconds: number[],
  drawn: Duration,
): ReplayReport['instanceSeconds']['provision'] {
  return {
    p50: percentile(seconds, 50),
    p95: percentile(seconds, 95),
    drawnMedian: drawn.medianSeconds,
    drawnP95: drawn.p95Seconds,
    count: seconds.length,
  };
}

const plan = replayPlan({
  seed: Number(process.env.BENCH_REPLAY_SEED ?? 33),
  compression: Number(process.env.BENCH_REPLAY_COMPRESSION ?? 15),
});
const delays = new ReplayDelays(planTimes(plan), plan.compression);
const world = useWorld({
  namespace: 'bench-replay',
  enabled: true,
  platform: { hcp: true, hcpDelays: delays.delays },
  operator: { config: replayOperatorConfig(plan) },
  awaitNamespaceDeletion: true,
  namespaceDeleteTimeoutMs: 300_000,
});
const { ns } = world;

describe('the replayed slice of the CI week', () => {
  beforeAll(() => createPullSecret(ns.api, ns.name));

  it(`replays ${plan.slice.lines.length} leases of ${plan.pool.name} on the real operator`, async () => {
    const replay = await runReplay({
      api: ns.api,
      namespace: ns.name,
      plan,
      delays,
      warmUpTimeoutMs: 300_000,
      graceMs: 20 * 60_000,
    });
    const simulated = simulateSlice(plan);
    const agreement = compareReplay(simulated, replay.figures);
    const report: ReplayReport = {
      seed: plan.seed,
      pool: plan.pool.name,
      warmSpares: plan.pool.warmSpares,
      fromSeconds: plan.slice.fromSeconds,
      durationSeconds: plan.slice.durationSeconds,
      compression: plan.compression,
      leases: plan.slice.lines.length,
      simulated: reportedFigures(simulated),
      replayed: reportedFigures(replay.figures),
      agreement,
      realSeconds: replay.realSeconds,
      instanceSeconds: {
        provision: stepFigures(replay.instanceSeconds.provision, TOPOLOGY_TIMES.hcp.provision),
        teardown: stepFigures(replay.instanceSeconds.teardown, TOPOLOGY_TIMES.hcp.teardown),
      },
    };
    const file = path.join(projectRoot(), REPLAY_RESULT_PATH);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(report, null, 2) + '\n');
    process.stdout.write(`\n${formatReplayReport(report)}\n`);
    expect(replay.figures.leases).toBe(plan.slice.lines.length);
  });
});
