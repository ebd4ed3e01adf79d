import { describe, expect, it } from '@jest/globals';
import { SeededRandom } from '../support/seeded-random.js';
import { FAULT_KINDS, soakSchedule } from './soak-schedule.js';
import { soakSettings } from './soak-settings.js';

describe('the soak schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    const settings = soakSettings({ SOAK_MINUTES: '10', SOAK_SEED: '42' });
    expect(soakSchedule(settings)).toEqual(soakSchedule(settings));
    expect(soakSchedule({ ...settings, seed: 43 })).not.toEqual(soakSchedule(settings));
  });

  it('plans about 200 leases in 30 minutes, scaled to the length, all in the first 90%', () => {
    for (const minutes of ['30', '10', '2']) {
      const settings = soakSettings({ SOAK_MINUTES: minutes, SOAK_SEED: '7' });
      const { leases, durationMs } = soakSchedule(settings);
      expect(leases).toHaveLength(Math.round((200 * Number(minutes)) / 30));
      expect(Math.max(...leases.map((l) => l.atMs))).toBeLessThanOrEqual(durationMs * 0.9);
      expect(leases.map((l) => l.atMs)).toEqual(
        [...leases.map((l) => l.atMs)].sort((a, b) => a - b),
      );
    }
  });

  it('mixes both topologies and every way a lease ends, with whole-second TTLs', () => {
    const { leases } = soakSchedule(soakSettings({ SOAK_MINUTES: '30', SOAK_SEED: '3' }));
    expect(new Set(leases.map((l) => l.topology))).toEqual(new Set(['crc', 'hcp']));
    expect(new Set(leases.map((l) => l.end))).toEqual(new Set(['delete', 'ttl', 'github']));
    for (const lease of leases.filter((l) => l.end === 'ttl')) {
      expect(lease.holdMs % 1000).toBe(0);
      expect(lease.holdMs).toBeGreaterThanOrEqual(60_000);
    }
  });

  it('begins with every fault kind once and keeps faults inside the fault window', () => {
    const { faults, durationMs } = soakSchedule(
      soakSettings({ SOAK_MINUTES: '30', SOAK_SEED: '11' }),
    );
    expect(new Set(faults.slice(0, FAULT_KINDS.length).map((f) => f.kind))).toEqual(
      new Set(FAULT_KINDS),
    );
    for (const fault of faults) {
      expect(fault.atMs).toBeGreaterThanOrEqual(durationMs * 0.05);
      expect(fault.atMs).toBeLessThan(durationMs * 0.85);
    }
    // After the first round, what ends the operator's process comes only in the first half.
    const ending = faults
      .slice(FAULT_KINDS.length)
      .filter((f) => f.kind === 'operator-sigkill' || f.kind === 'apiserver-restart');
    expect(ending.length).toBeGreaterThan(0);
    for (const fault of ending) expect(fault.atMs).toBeLessThan(durationMs * 0.5);
    expect(faults.filter((f) => f.atMs >= durationMs * 0.5).length).toBeGreaterThan(10);
    // A mean gap of 30 s over 24 minutes.
    expect(faults.length).toBeGreaterThan(30);
    expect(faults.length).toBeLessThan(70);
  });
});

describe('the soak settings', () => {
  it('defaults to 30 minutes and a random seed', () => {
    const settings = soakSettings({});
    expect(settings.minutes).toBe(30);
    expect(settings.leases).toBe(200);
    expect(Number.isInteger(settings.seed)).toBe(true);
  });

  it('names the variable a bad value came in', () => {
    expect(() => soakSettings({ SOAK_MINUTES: '0' })).toThrow(/SOAK_MINUTES .* \(got "0"\)/);
    expect(() => soakSettings({ SOAK_MINUTES: 'ten' })).toThrow(/SOAK_MINUTES/);
    expect(() => soakSettings({ SOAK_SEED: '-1' })).toThrow(/SOAK_SEED .* \(got "-1"\)/);
  });
});

describe('the seeded generator', () => {
  it('repeats its sequence for a seed and stays in range', () => {
    const a = new SeededRandom(5);
    const b = new SeededRandom(5);
    const values = Array.from({ length: 1000 }, () => a.next());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
  });

  it('picks by weight', () => {
    const random = new SeededRandom(9);
    const picks = Array.from({ length: 4000 }, () =>
      random.weighted([
        { item: 'a', weight: 3 },
        { item: 'b', weight: 1 },
      ]),
    );
    const share = picks.filter((p) => p === 'a').length / picks.length;
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.8);
  });
});
