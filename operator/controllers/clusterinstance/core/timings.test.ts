import { describe, expect, it } from '@jest/globals';
import { DEFAULT_TIMINGS, loadTimings } from '../../../timings.js';
import { DEFAULT_INSTANCE_TIMINGS } from './timings.js';

describe('instance timings', () => {
  it('default to the operator defaults (config.test.ts pins them), frozen', () => {
    expect(DEFAULT_INSTANCE_TIMINGS).toEqual(DEFAULT_TIMINGS.instance);
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
