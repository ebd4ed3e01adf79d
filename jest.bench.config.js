// Benchmarks (`npm run bench`): the same ESM set-up and control plane as the tests, one file at a
// time so that measurements do not compete with each other for the two cores.
import config from './jest.config.js';

/** @type {import('jest').Config} */
const benchConfig = {
  ...config,
  testMatch: ['<rootDir>/test/bench/**/*.bench.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 30 * 60_000,
  maxWorkers: 1,
  reporters: ['default', '<rootDir>/test/jest/durations-reporter.js'],
  testSequencer: '<rootDir>/test/bench/bench-order.js',
};

export default benchConfig;
