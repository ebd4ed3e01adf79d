import { describe, expect, it } from '@jest/globals';
import { buildNames } from './build-names.js';
import { BUILD_STAGES } from './build-stages.js';

describe('buildNames', () => {
  it('keeps every name a DNS label for the longest bundle name, and apart between attempts', () => {
    const longest = 'b'.repeat(58);
    const names = buildNames(longest, 'abc123');
    const jobs = BUILD_STAGES.flatMap((s) => s.steps.map((step) => names.job(s.code, step)));
    const { golden, ...attemptNames } = names;
    for (const name of [
      ...Object.values(attemptNames).filter((v) => typeof v === 'string'),
      ...jobs,
    ])
      expect(name).toMatch(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    expect(new Set(jobs).size).toBe(jobs.length);
    expect(buildNames('x', 'a').targetVm).not.toBe(buildNames('x', 'b').targetVm);
    // The golden disk is the bundle's, whatever the attempt (a claim name: a DNS subdomain).
    expect(golden).toBe(`${longest}-golden`);
  });
});
