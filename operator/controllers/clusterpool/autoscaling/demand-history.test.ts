import { generateCiWeek } from '../../../../test/support/supply/ci-week.js';
import { trainedHistory, WEEK_EPOCH_MS } from '../../../../test/support/supply/sizing-policy.js';
import { autoscalingPolicy } from './autoscaling-spec.js';
import {
  advanceHistory,
  emptyHistory,
  expectedRate,
  recordArrival,
  recentRate,
} from './demand-history.js';
import { desiredSpares } from './desired-spares.js';
import { decodeHistory, encodeHistory } from './history-codec.js';
import { slotOf } from './week-slots.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('demand history', () => {
  const week = trainedHistory([generateCiWeek(7)], 'crc-pool');

  it('learns the weekly shape from one replayed week', () => {
    // The mean learned rate over some hours of a day (single slots are Poisson-noisy).
    const mean = (day: number, from: number, to: number): number => {
      const rates: number[] = [];
      for (let minute = from * 60; minute < to * 60; minute += 15)
        rates.push(expectedRate(week, slotOf(WEEK_EPOCH_MS + day * 24 * HOUR + minute * MINUTE))!);
      return rates.reduce((a, b) => a + b, 0) / rates.length;
    };
    // The generated peak is 0.8 leases/min on weekdays 08–18 (with bursts), 0.032 at night, 0.016 at weekends.
    expect(mean(1, 9, 12)).toBeGreaterThan(0.6);
    expect(mean(1, 0, 6)).toBeLessThan(0.1);
    expect(mean(5, 0, 24)).toBeLessThan(0.1);
    expect(mean(1, 9, 12)).toBeGreaterThan(10 * mean(1, 0, 6));
  });

  it('has the spares up before the morning ramp that it learned', () => {
    const policy = autoscalingPolicy({ maxSpares: 30 });
    const pool = { maxSize: 80, leased: 0 };
    const decide = (time: number): number =>
      desiredSpares({
        now: time,
        history: advanceHistory(week, time),
        policy,
        leadTimeMs: 8 * MINUTE,
        pool,
      }).spares;
    const tuesday = WEEK_EPOCH_MS + 24 * HOUR;
    expect(decide(tuesday + 7 * HOUR + 50 * MINUTE)).toBeGreaterThan(
      decide(tuesday + 3 * HOUR) + 4,
    );
  });

  it('counts a burst in the recent rate and lets it fade', () => {
    const start = WEEK_EPOCH_MS;
    let history = emptyHistory(start);
    for (let i = 0; i < 10; i++) history = recordArrival(history, start + i * 1000);
    expect(recentRate(history, start + 10_000)).toBeCloseTo(1, 1);
    expect(recentRate(history, start + 30 * MINUTE)).toBeLessThan(0.06);
  });

  it('does not learn a gap it did not observe as quiet', () => {
    const start = WEEK_EPOCH_MS;
    const busy = trainedHistory([generateCiWeek(8)], 'crc-pool');
    const before = expectedRate(busy, slotOf(start + 10 * HOUR))!;
    // The operator was down from 09:00 to 12:00 on the next Monday.
    const after = advanceHistory(advanceHistory(busy, start + 9 * HOUR), start + 12 * HOUR);
    expect(expectedRate(after, slotOf(start + 10 * HOUR))).toBe(before);
  });

  it('round-trips through its text, which stays small', () => {
    const text = encodeHistory(week);
    expect(text.length).toBeLessThan(3 * 1024);
    const { history, problem } = decodeHistory(text, WEEK_EPOCH_MS);
    expect(problem).toBeUndefined();
    expect(history.weekly.length).toBe(672);
    history.weekly.forEach((count, slot) => expect(count).toBeCloseTo(week.weekly[slot]!, 2));
    expect(history.openSlotStart).toBe(week.openSlotStart);
    expect(history.observedAt).toBe(week.observedAt);
    expect(encodeHistory(history)).toBe(text);
  });

  it('starts afresh from a text it did not write, and says why', () => {
    const good = JSON.parse(encodeHistory(week)) as { v: number; w: string; o: number[] };
    const cases: [string, RegExp][] = [
      [JSON.stringify({ ...good, v: 2 }), /version 2, not 1/],
      ['{"v":1', /not JSON/],
      [JSON.stringify({ ...good, w: good.w.replace(/\.[^.]+$/, '') }), /malformed/],
      [JSON.stringify({ ...good, o: [1, 2, 3, 4, -5] }), /malformed/],
      ['x'.repeat(9000), /over 8192/],
    ];
    for (const [text, problem] of cases) {
      const decoded = decodeHistory(text, WEEK_EPOCH_MS);
      expect(decoded.problem).toMatch(problem);
      expect(decoded.history.weekly.every((c) => c === -1)).toBe(true);
    }
  });
});
