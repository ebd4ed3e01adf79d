import { describe, expect, it } from '@jest/globals';
import { sameContent } from './objects.js';

describe('sameContent', () => {
  it('ignores key order and undefined fields, as the apiserver does', () => {
    const read = { conditions: [{ message: 'm', reason: 'R', type: 'Ready' }], phase: 'Pending' };
    const computed = {
      phase: 'Pending',
      queuePosition: undefined,
      conditions: [{ type: 'Ready', reason: 'R', message: 'm' }],
    };
    expect(sameContent(read, computed)).toBe(true);
  });

  it('sees a changed value, and list order', () => {
    expect(sameContent({ phase: 'Pending' }, { phase: 'Bound' })).toBe(false);
    expect(sameContent({ list: [1, 2] }, { list: [2, 1] })).toBe(false);
  });
});
