import { HostedClusterDelayClock } from './hosted-cluster-delays.js';

const hc = (uid: string): { metadata: { uid: string } } => ({ metadata: { uid } });

describe('the simulated HostedClusters delays', () => {
  it('draws each delay once, from the first pass that asks, and counts down on the given clock', () => {
    let now = 1000;
    const drawn: string[] = [];
    const clock = new HostedClusterDelayClock(
      {
        availableAfterMs: (h) => (drawn.push(`available ${h.metadata!.uid}`), 5000),
        deletedAfterMs: (h) => (drawn.push(`deleted ${h.metadata!.uid}`), 2000),
      },
      () => now,
    );
    expect(clock.untilAvailable(hc('a'))).toBe(5000);
    now += 3000;
    expect(clock.untilAvailable(hc('a'))).toBe(2000);
    expect(clock.untilAvailable(hc('b'))).toBe(5000);
    now += 2000;
    expect(clock.untilAvailable(hc('a'))).toBe(0);
    expect(clock.untilDeleted(hc('a'))).toBe(2000);
    now += 2500;
    expect(clock.untilDeleted(hc('a'))).toBe(0);
    clock.forget(hc('a'));
    expect(clock.untilAvailable(hc('a'))).toBe(5000);
    expect(drawn).toEqual(['available a', 'available b', 'deleted a', 'available a']);
  });

  it('waits for nothing without delays', () => {
    const clock = new HostedClusterDelayClock();
    expect(clock.untilAvailable(hc('a'))).toBe(0);
    expect(clock.untilDeleted(hc('a'))).toBe(0);
  });
});
