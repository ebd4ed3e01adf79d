import type { ClusterInstance } from '../../../client/api/resources.js';
import { compareReplay } from './replay-agreement.js';
import { InstanceTimeline } from './replay-timeline.js';
import { summarise } from './supply-figures.js';
import { busiestSlice, sliceTrace } from './trace-slice.js';

const instance = (phase: string, claimed = false, deleting = false): ClusterInstance =>
  ({
    metadata: { name: 'i', ...(deleting ? { deletionTimestamp: 'x' } : {}) },
    status: { phase, ...(claimed ? { leaseRef: { name: 'l', uid: 'u' } } : {}) },
  }) as unknown as ClusterInstance;

const figures = (waits: number[], idleHours: number, peak: number): ReturnType<typeof summarise> =>
  summarise(waits, {
    idle: idleHours * 3600,
    hibernated: 0,
    provisioning: 0,
    peak,
    maxSizeHits: 0,
  });

describe('the replay figures', () => {
  it('integrates idle spares (Ready, unclaimed, not deleting) and finds the peak within a window', () => {
    const timeline = new InstanceTimeline();
    timeline.record(0, [instance('Ready'), instance('Ready')]);
    timeline.record(10, [instance('Ready'), instance('Ready', true), instance('Provisioning')]);
    timeline.record(20, [instance('Ready', false, true), instance('Ready', true)]);
    expect(timeline.integral('idle', 5, 25)).toBe(2 * 5 + 1 * 10 + 0 * 5);
    expect(timeline.integral('provisioning', 0, 30)).toBe(10);
    expect(timeline.peak(0, 5)).toBe(2);
    expect(timeline.peak(0, 30)).toBe(3);
  });

  it('compares p50, p95, idle spare-hours and peak, against a floor for waits near 0 s', () => {
    const agreement = compareReplay(figures([0, 0, 600], 4, 10), figures([30, 30, 660], 5, 11));
    expect(agreement.figures.map((f) => [f.figure, f.percent])).toEqual([
      ['p50WaitSeconds', 50],
      ['p95WaitSeconds', 10],
      ['idleSpareHours', 25],
      ['peakInstances', 10],
    ]);
    expect(agreement.agreesWithinPercent).toBe(50);
    expect(agreement.withinTolerance).toBe(false);
  });

  it('slices a trace to one pool and window, re-based, and finds the busiest window', () => {
    const line = (
      at: number,
      pool = 'p',
    ): { at: number; pool: string; version: string; holdSeconds: number } => ({
      at,
      pool,
      version: '',
      holdSeconds: 60,
    });
    const trace = [line(100), line(3700, 'q'), line(3800), line(3900), line(7300)];
    expect(sliceTrace(trace, 'p', 3600, 3600).lines.map((l) => l.at)).toEqual([200, 300]);
    expect(busiestSlice(trace, 'p', 3600, 1800, 4 * 3600).fromSeconds).toBe(1800);
  });
});
