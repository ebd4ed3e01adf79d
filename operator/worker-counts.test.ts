import { describe, expect, it } from '@jest/globals';
import type { ConfigError } from './config.js';
import { CONTROLLER_NAMES, loadOperatorConfig } from './config.js';
import { DEFAULT_WORKERS } from './worker-counts.js';

const noPodFile = (): string => {
  throw new Error('not in a pod');
};
const workers = (value?: string): Readonly<Record<string, number>> =>
  loadOperatorConfig(value === undefined ? {} : { workers: value }, {}, noPodFile).workers;
const problems = (value: string): string[] => {
  try {
    loadOperatorConfig({ workers: value }, {}, noPodFile);
  } catch (error) {
    return (error as ConfigError).problems;
  }
  throw new Error(`--workers=${value} was accepted`);
};

describe('--workers', () => {
  it('gives every controller its documented default when not set', () => {
    expect(workers()).toEqual(DEFAULT_WORKERS);
    expect(Object.keys(workers()).sort()).toEqual([...CONTROLLER_NAMES].sort());
    expect(workers()).toMatchObject({ clusterinstance: 8, clusterlease: 4, cirun: 1 });
  });

  it('gives every controller N in the old form', () => {
    expect(new Set(Object.values(workers('5')))).toEqual(new Set([5]));
    expect(Object.keys(workers('5')).sort()).toEqual([...CONTROLLER_NAMES].sort());
  });

  it('sets the named controllers and keeps the default of the others', () => {
    expect(workers('clusterinstance=16, clusterlease=8')).toEqual({
      ...DEFAULT_WORKERS,
      clusterinstance: 16,
      clusterlease: 8,
    });
    expect(workers('cirun=1')).toEqual(DEFAULT_WORKERS);
    expect(workers('admissionpolicy=64').admissionpolicy).toBe(64);
  });

  it.each([
    ['0', '--workers must be an integer from 1 to 64 (got "0"), or name=N pairs'],
    ['many', '--workers must be an integer from 1 to 64 (got "many")'],
    ['65', '--workers must be an integer from 1 to 64 (got "65")'],
    ['', '--workers must be an integer from 1 to 64 (got "")'],
    [
      'clusterinstanse=4',
      '--workers names no controller ("clusterinstanse"; the controllers are clusterpool, clusterlease, clusterinstance, guesthealth, crcbundle, cirun, versionstream, admissionpolicy, ciaccesspolicy) (got "clusterinstanse=4")',
    ],
    ['bundlebuild=2', '--workers names no controller ("bundlebuild"; the controllers are'],
    [
      'clusterinstance=0',
      '--workers must give clusterinstance an integer from 1 to 64 (clusterinstance=N) (got "clusterinstance=0")',
    ],
    [
      'clusterlease=four',
      '--workers must give clusterlease an integer from 1 to 64 (clusterlease=N) (got "clusterlease=four")',
    ],
    ['clusterlease=', '--workers must give clusterlease an integer from 1 to 64'],
    ['clusterlease=2=3', '--workers must give clusterlease an integer from 1 to 64'],
    [
      'clusterlease=2,clusterlease=3',
      '--workers names clusterlease twice (got "clusterlease=2,clusterlease=3")',
    ],
    ['clusterlease=2,', '--workers names no controller ("";'],
  ])('refuses %j, naming the flag and the value', (value, message) => {
    const found = problems(value);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(message);
  });

  it('reports each bad pair of a list', () => {
    expect(problems('nope=1,clusterlease=0')).toHaveLength(2);
  });
});
