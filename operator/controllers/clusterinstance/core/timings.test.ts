import { describe, expect, it } from '@jest/globals';
import { DEFAULT_INSTANCE_TIMINGS, instanceTimings } from './timings.js';

describe('instanceTimings', () => {
  it('defaults to the production waits', () => {
    expect(instanceTimings()).toEqual({
      recheckMs: 20_000,
      readyRecheckMs: 60_000,
      handoffGraceMs: 30_000,
      endpointRecheckMs: 20_000,
      platformRecheckMs: 20_000,
      teardownResyncMs: 60_000,
      cleanupTimeoutMs: 900_000,
    });
  });

  it('takes the waits it is given and keeps the defaults of the others', () => {
    const timings = instanceTimings({ recheckMs: 500, cleanupTimeoutMs: 5_000 });
    expect(timings).toEqual({
      ...DEFAULT_INSTANCE_TIMINGS,
      recheckMs: 500,
      cleanupTimeoutMs: 5_000,
    });
  });

  it('refuses a wait that is not a positive number of milliseconds, naming it', () => {
    expect(() => instanceTimings({ readyRecheckMs: 0 })).toThrow(
      'instance timing readyRecheckMs must be a positive number of milliseconds, not 0',
    );
    expect(() => instanceTimings({ handoffGraceMs: Number.NaN })).toThrow(/handoffGraceMs/);
  });
});
