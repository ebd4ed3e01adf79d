import { describe, expect, it } from '@jest/globals';
import {
  compareVersionText,
  inMinor,
  newestVersion,
  parseReleaseVersion,
} from './release-version.js';

describe('OpenShift release versions', () => {
  it('parses releases and pre-releases, and refuses what is not SemVer', () => {
    expect(parseReleaseVersion('4.19.7')).toEqual({
      major: 4,
      minor: 19,
      patch: 7,
      prerelease: [],
    });
    expect(parseReleaseVersion('4.20.0-rc.3')?.prerelease).toEqual(['rc', '3']);
    for (const bad of ['4.19', '4.19.07', 'v4.19.1', '4.19.1-', '4.19.x', ''])
      expect(parseReleaseVersion(bad)).toBeUndefined();
  });

  it('orders by SemVer precedence, numbers numerically', () => {
    const sorted = [
      '4.19.10',
      '4.19.9',
      '4.20.0',
      '4.20.0-rc.10',
      '4.20.0-rc.2',
      '4.20.0-ec.1',
      '4.20.0-fc.0',
      '4.19.0',
    ].sort(compareVersionText);
    expect(sorted).toEqual([
      '4.19.0',
      '4.19.9',
      '4.19.10',
      '4.20.0-ec.1',
      '4.20.0-fc.0',
      '4.20.0-rc.2',
      '4.20.0-rc.10',
      '4.20.0',
    ]);
    expect(compareVersionText('4.19.7+build.1', '4.19.7')).toBe(0);
    expect(compareVersionText('1.0.0-alpha', '1.0.0-alpha.1')).toBeLessThan(0);
    expect(compareVersionText('1.0.0-alpha.1', '1.0.0-alpha.beta')).toBeLessThan(0);
  });

  it('sorts versions that do not parse below every version', () => {
    expect(newestVersion(['garbage', '4.19.1'])).toBe('4.19.1');
    expect(newestVersion([])).toBeUndefined();
  });

  it('tells which minor a version belongs to', () => {
    expect(inMinor('4.19.7', '4.19')).toBe(true);
    expect(inMinor('4.19.0-rc.1', '4.19')).toBe(true);
    expect(inMinor('4.1.9', '4.19')).toBe(false);
    expect(inMinor('4.190.1', '4.19')).toBe(false);
    expect(inMinor('4.18.22', '4.19')).toBe(false);
  });
});
