import { generateCiWeek, WEEK_SECONDS } from './ci-week.js';
import { simulatePool, type SimPool } from './pool-simulation.js';
import { staticPolicy } from './sizing-policy.js';
import { TOPOLOGY_TIMES } from './topology-times.js';
import { formatTrace, parseTrace, type TraceLine } from './trace.js';

const pool: SimPool = { name: 'crc-pool', topology: 'crc', minSize: 0, maxSize: 10 };
const run = (
  trace: TraceLine[],
  warmSpares: number,
  over: Partial<SimPool> = {},
): ReturnType<typeof simulatePool> =>
  simulatePool({
    pool: { ...pool, ...over },
    policy: staticPolicy(warmSpares),
    trace,
    weekSeconds: WEEK_SECONDS,
    seed: 1,
  });

describe('the supply simulation', () => {
  it('keeps a static pool with no arrivals idle all week: spares × 168 hours, no wait', () => {
    const figures = run([], 3);
    expect(figures.leases).toBe(0);
    expect(figures.maxWaitSeconds).toBe(0);
    expect(figures.idleSpareHours).toBeCloseTo(3 * 168, 6);
    expect(figures.peakInstances).toBe(3);
  });

  it('binds a lease to a warm spare at once, and without spares after a provisioning time', () => {
    const lease = { at: 3600, pool: 'crc-pool', version: '4.16', holdSeconds: 600 };
    expect(run([lease], 1).maxWaitSeconds).toBe(0);
    const cold = run([lease], 0).maxWaitSeconds;
    const { medianSeconds, p95Seconds } = TOPOLOGY_TIMES.crc.provision;
    expect(cold).toBeGreaterThan(medianSeconds / 3);
    expect(cold).toBeLessThan(p95Seconds * 3);
  });

  it('counts running into maxSize once per episode', () => {
    const burst = Array.from({ length: 5 }, (_, i) => ({
      at: 100 + i,
      pool: 'crc-pool',
      version: '',
      holdSeconds: 3600,
    }));
    const figures = run(burst, 0, { maxSize: 2 });
    expect(figures.maxSizeHits).toBe(1);
    expect(figures.peakInstances).toBe(2);
    expect(figures.leases).toBe(5);
  });

  it('resumes a hibernated spare for a lease when none runs', () => {
    const lease = { at: 7200, pool: 'crc-pool', version: '', holdSeconds: 600 };
    const figures = run([lease], 2, {
      hibernation: { runningSpares: 0, hibernateAfterSeconds: 600 },
    });
    expect(figures.hibernatedSpareHours).toBeGreaterThan(2 * 160);
    expect(figures.maxWaitSeconds).toBeGreaterThan(0);
    expect(figures.maxWaitSeconds).toBeLessThan(TOPOLOGY_TIMES.crc.resume.p95Seconds * 3);
  });

  it('generates the same week from the same seed, and its trace round-trips', () => {
    const week = generateCiWeek(5);
    expect(generateCiWeek(5)).toEqual(week);
    expect(parseTrace(formatTrace(week))).toEqual(week);
    const weekday = week.filter((l) => l.at < 5 * 86_400).length / 5;
    const weekend = week.filter((l) => l.at >= 5 * 86_400).length / 2;
    expect(weekday).toBeGreaterThan(10 * weekend);
    expect(() => parseTrace('{"at":1,"pool":"p","version":"","holdSeconds":0}')).toThrow(
      /trace line 1/,
    );
  });
});
