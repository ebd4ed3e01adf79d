// The upgrade test (`npm run test:upgrade`, docs/reference/api-compatibility.md#the-upgrade-test):
// the tests' ESM set-up and control plane, for test/upgrade/*.upgrade.ts alone. It builds the
// last release's operator on its first run (cached after), which npm test's budget has no room for.
import config from './jest.config.js';

/** @type {import('jest').Config} */
const upgradeConfig = {
  ...config,
  testMatch: ['<rootDir>/test/upgrade/**/*.upgrade.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testTimeout: 15 * 60_000,
  maxWorkers: 1,
  reporters: ['default', '<rootDir>/test/jest/durations-reporter.js'],
  testSequencer: '@jest/test-sequencer',
};

export default upgradeConfig;
