import { describe, expect, it } from '@jest/globals';
import type { LabelSelector } from './label-selector.js';
import { describeSelector, selects } from './label-selector.js';

const labels = { team: 'blue', env: 'ci' };

describe('a label selector', () => {
  it.each<[string, LabelSelector, boolean]>([
    ['empty: everything', {}, true],
    ['matchLabels that hold', { matchLabels: { team: 'blue' } }, true],
    ['matchLabels of another value', { matchLabels: { team: 'red' } }, false],
    ['matchLabels of a missing key', { matchLabels: { owner: 'x' } }, false],
    ['In', { matchExpressions: [{ key: 'env', operator: 'In', values: ['ci', 'qa'] }] }, true],
    [
      'In, another value',
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['qa'] }] },
      false,
    ],
    [
      'In, no such key',
      { matchExpressions: [{ key: 'x', operator: 'In', values: ['ci'] }] },
      false,
    ],
    ['NotIn', { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['qa'] }] }, true],
    [
      'NotIn, the value',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['ci'] }] },
      false,
    ],
    [
      'NotIn, no such key',
      { matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['ci'] }] },
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, false],
    ['an unknown operator', { matchExpressions: [{ key: 'team', operator: 'Is' }] }, false],
    [
      'all of them at once',
      {
        matchLabels: { team: 'blue' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['ci'] },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      true,
    ],
  ])('%s', (_name, selector, expected) => {
    expect(selects(selector, labels)).toBe(expected);
  });

  it('reads as kubectl writes it', () => {
    expect(
      describeSelector({
        matchLabels: { team: 'blue' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['ci', 'qa'] },
          { key: 'zone', operator: 'NotIn', values: ['a'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('team=blue,env in (ci,qa),zone notin (a),owner,!legacy');
    expect(describeSelector({})).toBe('(everything)');
  });
});
