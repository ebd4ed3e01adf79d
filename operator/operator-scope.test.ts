import { describe, expect, it } from '@jest/globals';
import { carriesScope, scopeFromFlag } from './operator-scope.js';

const parse = (value: string | undefined): { scope: unknown; problems: string[] } => {
  const problems: string[] = [];
  return { scope: scopeFromFlag(value, problems), problems };
};

describe('--scope-labels', () => {
  it('is no scope when unset', () => {
    expect(parse(undefined)).toEqual({ scope: undefined, problems: [] });
  });

  it('takes comma-separated key=value labels, prefixed keys and empty values too', () => {
    expect(parse('team=a, example.com/tier=ci,solo=')).toEqual({
      scope: { labels: { team: 'a', 'example.com/tier': 'ci', solo: '' } },
      problems: [],
    });
  });

  it.each([
    ['an empty value', ''],
    ['a key without a value', 'team'],
    ['a selector that is not an equality', 'team!=a'],
    ['a set-based selector', 'team in (a,b)'],
    ['a value that is no label value', 'team=a b'],
    ['a key that is no label key', 'Team_/x=a'],
    ['a key given twice', 'team=a,team=b'],
  ])('refuses %s, naming the setting and the value', (_, value) => {
    const { scope, problems } = parse(value);
    expect(scope).toBeUndefined();
    expect(problems).toEqual([
      `--scope-labels must be key=value pairs, comma-separated, each a label key and value, each key once (got "${value}")`,
    ]);
  });
});

describe('carriesScope', () => {
  const scope = { labels: { team: 'a', tier: 'ci' } };

  it('holds for an object with every label of the scope, whatever else it carries', () => {
    expect(carriesScope(scope, { metadata: { labels: { team: 'a', tier: 'ci', x: 'y' } } })).toBe(
      true,
    );
  });

  it('fails for an object that lacks one or has another value, and for none', () => {
    expect(carriesScope(scope, { metadata: { labels: { team: 'a' } } })).toBe(false);
    expect(carriesScope(scope, { metadata: { labels: { team: 'b', tier: 'ci' } } })).toBe(false);
    expect(carriesScope(scope, { metadata: {} })).toBe(false);
    expect(carriesScope(scope, undefined)).toBe(false);
  });

  it('holds for everything without a scope', () => {
    expect(carriesScope(undefined, { metadata: {} })).toBe(true);
  });
});
