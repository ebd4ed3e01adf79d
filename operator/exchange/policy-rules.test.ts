import { describe, expect, it } from '@jest/globals';
import { compileRules } from './policy-rules.js';

const rule = (name: string, expression: string) => ({
  name,
  expression,
  namespace: 'ci',
  serviceAccount: 'guestcluster-ci',
});

describe('compileRules', () => {
  it('admits exactly the claims an expression names', () => {
    const compiled = compileRules({
      spec: {
        rules: [rule('main', "claims.repository == 'org/app' && claims.ref == 'refs/heads/main'")],
      },
    });
    if (!compiled.ok) throw new Error(compiled.message);
    const [main] = compiled.rules;
    expect(main!.matches({ repository: 'org/app', ref: 'refs/heads/main' })).toBe(true);
    expect(main!.matches({ repository: 'org/app', ref: 'refs/heads/dev' })).toBe(false);
    expect(main!.matches({ repository: 'org/other', ref: 'refs/heads/main' })).toBe(false);
  });

  it('does not admit a token that lacks a claim the rule reads', () => {
    const compiled = compileRules({
      spec: { rules: [rule('env', "claims.environment == 'prod'")] },
    });
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.rules[0]!.matches({ repository: 'org/app' })).toBe(false);
  });

  it('reads whole numbers as ints and lists as lists', () => {
    const compiled = compileRules({
      spec: { rules: [rule('n', "claims.run_attempt == 1 && 'dev' in claims.groups")] },
    });
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.rules[0]!.matches({ run_attempt: 1, groups: ['dev', 'ops'] })).toBe(true);
  });

  it.each([
    ['broken', "claims.repository == 'org/app' &&", /^Unexpected token/],
    ['not-bool', "claims.repository + '!'", /not bool/],
    ['unknown-variable', "request.repository == 'org/app'", /request/],
  ])('names the rule %s that does not compile', (name, expression, message) => {
    const compiled = compileRules({
      spec: { rules: [rule('fine', 'true'), rule(name, expression)] },
    });
    expect(compiled).toMatchObject({ ok: false, rule: name });
    expect(!compiled.ok && compiled.message).toMatch(message);
  });
});
