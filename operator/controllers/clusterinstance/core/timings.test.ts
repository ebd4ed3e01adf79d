import { describe, expect, it } from '@jest/globals';
import { loadTimings } from '../../../timings.js';
import { DEFAULT_INSTANCE_TIMINGS } from './timings.js';

describe('instance timings', () => {
  it('default to the production waits', () => {
    expect(DEFAULT_INSTANCE_TIMINGS).toEqual({
      recheckMs: 20_000,
      readyRecheckMs: 60_000,
      handoffGraceMs: 30_000,
      endpointRecheckMs: 20_000,
      platformRecheckMs: 20_000,
      teardownResyncMs: 60_000,
      cleanupTimeoutMs: 900_000,
    });
    expect(Object.isFrozen(DEFAULT_INSTANCE_TIMINGS)).toBe(true);
  });

  it('are each set by an instance.<wait> key of the operator timings, the others kept', () => {
    const waits = Object.keys(DEFAULT_INSTANCE_TIMINGS);
    for (const [index, wait] of waits.entries()) {
      const problems: string[] = [];
      const key = `instance.${wait.replace(/Ms$/, '')}`;
      const timings = loadTimings({ timings: `${key}=${index + 1}s` }, {}, problems);
      expect(problems).toEqual([]);
      expect(timings.instance).toEqual({ ...DEFAULT_INSTANCE_TIMINGS, [wait]: (index + 1) * 1000 });
    }
  });
});
