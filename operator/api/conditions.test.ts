import { describe, expect, it } from '@jest/globals';
import { setCondition } from './conditions.js';

describe('setCondition', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const t1 = Date.parse('2026-01-01T01:00:00Z');

  it('adds a condition with the transition time', () => {
    expect(
      setCondition(
        undefined,
        { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm' },
        t0,
      ),
    ).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Waiting',
        message: 'm',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });

  it('keeps the transition time when only reason or message change, and moves it on a flip', () => {
    const first = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'A', message: 'a' },
      t0,
    );
    const same = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'B', message: 'b' },
      t1,
    );
    expect(same[0]).toMatchObject({ reason: 'B', lastTransitionTime: '2026-01-01T00:00:00Z' });
    const flipped = setCondition(
      same,
      { type: 'Ready', status: 'True', reason: 'C', message: 'c' },
      t1,
    );
    expect(flipped[0]).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-01-01T01:00:00Z',
    });
  });
});
