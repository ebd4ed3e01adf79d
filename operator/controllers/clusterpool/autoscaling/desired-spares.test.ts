import { autoscalingPolicy } from './autoscaling-spec.js';
import {
  advanceHistory,
  emptyHistory,
  recordArrival,
  type DemandHistory,
} from './demand-history.js';
import { desiredSpares, type SparesInput } from './desired-spares.js';

const MONDAY = Date.UTC(2026, 0, 5);
const MINUTE = 60_000;
const policy = autoscalingPolicy({ minSpares: 1, maxSpares: 30, scaleDownDelay: '30m' });
const pool = { minSize: 0, maxSize: 50, leased: 0 };
const lead = 8 * MINUTE;

function arrivals(
  history: DemandHistory,
  from: number,
  count: number,
  spacing: number,
): DemandHistory {
  let h = history;
  for (let i = 0; i < count; i++) h = recordArrival(h, from + i * spacing);
  return h;
}

function decide(
  input: Partial<SparesInput> & { now: number; history: DemandHistory },
): ReturnType<typeof desiredSpares> {
  return desiredSpares({ policy, leadTimeMs: lead, pool, ...input });
}

describe('desiredSpares', () => {
  const quiet = MONDAY + 10 * 60 * MINUTE;

  it('asks for the spares of a burst in the very decision that sees it', () => {
    const before = decide({ now: quiet, history: emptyHistory(quiet) });
    expect(before.spares).toBe(1);
    const burst = arrivals(emptyHistory(quiet), quiet, 12, 4000);
    const after = decide({ now: quiet + MINUTE, history: burst, previous: before.state });
    // 12 arrivals in a minute: about 1.1/min × 8 min ≈ 9 expected, plus the Poisson margin.
    expect(after.spares).toBeGreaterThanOrEqual(12);
    expect(after.reason).toMatch(
      /^\d+ spares: 1\.\d\d leases\/min lately × 8 min provisioning, \+\d+ for bursts \(5% run-out\)$/,
    );
  });

  it('steps down only after scaleDownDelay, and then halfway', () => {
    const burst = arrivals(emptyHistory(quiet), quiet, 12, 4000);
    const peak = decide({ now: quiet + MINUTE, history: burst });
    const later = quiet + 29 * MINUTE;
    const held = decide({
      now: later,
      history: advanceHistory(burst, later),
      previous: peak.state,
    });
    expect(held.spares).toBe(peak.spares);
    expect(held.reason).toContain('held until');
    const due = quiet + 31 * MINUTE + 1;
    const stepped = decide({ now: due, history: advanceHistory(burst, due), previous: held.state });
    expect(stepped.spares).toBeLessThan(peak.spares);
    expect(stepped.spares).toBeGreaterThan(1);
    const next = decide({
      now: due + 10 * MINUTE,
      history: advanceHistory(burst, due + 10 * MINUTE),
      previous: stepped.state,
    });
    expect(next.spares).toBe(stepped.spares);
  });

  it('never leaves minSpares, maxSpares, minSize or maxSize, whatever the demand', () => {
    const cases = [
      { minSpares: 0, maxSpares: 5, minSize: 0, maxSize: 50, leased: 0 },
      { minSpares: 2, maxSpares: 30, minSize: 0, maxSize: 10, leased: 7 },
      { minSpares: 0, maxSpares: 30, minSize: 6, maxSize: 20, leased: 1 },
      { minSpares: 3, maxSpares: 30, minSize: 0, maxSize: 4, leased: 4 },
    ];
    for (const c of cases) {
      const p = autoscalingPolicy({ minSpares: c.minSpares, maxSpares: c.maxSpares });
      const bounds = { minSize: c.minSize, maxSize: c.maxSize, leased: c.leased };
      const low = Math.min(Math.max(c.minSpares, c.minSize - c.leased), c.maxSize - c.leased);
      const high = Math.min(c.maxSpares, c.maxSize - c.leased);
      let history = emptyHistory(quiet);
      let previous: SparesInput['previous'];
      for (let minute = 0; minute < 240; minute++) {
        const now = quiet + minute * MINUTE;
        // A burst of 20 every hour, nothing between.
        if (minute % 60 === 0) history = arrivals(history, now, 20, 1000);
        const decision = desiredSpares({
          now,
          history: advanceHistory(history, now),
          policy: p,
          leadTimeMs: lead,
          pool: bounds,
          previous,
        });
        expect(decision.spares).toBeGreaterThanOrEqual(Math.max(0, low));
        expect(decision.spares).toBeLessThanOrEqual(Math.max(0, high));
        previous = decision.state;
      }
    }
  });

  it('says which bound capped it', () => {
    const burst = arrivals(emptyHistory(quiet), quiet, 30, 1000);
    const capped = decide({
      now: quiet + MINUTE,
      history: burst,
      pool: { maxSize: 10, leased: 7 },
    });
    expect(capped.spares).toBe(3);
    expect(capped.reason).toContain('capped by maxSize 10 with 7 leased');
  });
});
