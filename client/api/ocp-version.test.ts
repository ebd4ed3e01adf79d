import { describe, expect, it } from '@jest/globals';
import { isMinor, minorOf, versionMatches, versionsOverlap } from './ocp-version.js';

describe('OpenShift versions', () => {
  it.each([
    ['4.19', '4.19.7', true],
    ['4.19', '4.19.0-rc.1', true],
    ['4.19', '4.19', true],
    ['4.19', '4.190.1', false],
    ['4.19', '4.18.30', false],
    ['4.19.7', '4.19.7', true],
    ['4.19.7', '4.19.70', false],
    ['4.19.0', '4.19.0-rc.1', false],
    ['4.19.7', '4.19.8', false],
    ['4.19.7', '', false],
  ])('"%s" takes "%s": %s', (wanted, actual, matches) => {
    expect(versionMatches(wanted, actual)).toBe(matches);
  });

  it('overlaps when one version stands for the other, or either is unset', () => {
    expect(versionsOverlap('4.19', '4.19.7')).toBe(true);
    expect(versionsOverlap('4.19.7', '4.19')).toBe(true);
    expect(versionsOverlap(undefined, '4.18')).toBe(true);
    expect(versionsOverlap('4.18', '4.19')).toBe(false);
    expect(versionsOverlap('4.19.7', '4.19.8')).toBe(false);
  });

  it('names the minor of a version', () => {
    expect(minorOf('4.19.7')).toBe('4.19');
    expect(minorOf('4.16.0-ocp')).toBe('4.16');
    expect(minorOf('4.19')).toBe('4.19');
    expect(minorOf('latest')).toBeUndefined();
    expect(isMinor('4.19')).toBe(true);
    expect(isMinor('4.19.7')).toBe(false);
  });
});
