// Jest runs our TypeScript as native ES modules (Node runs with --experimental-vm-modules, see the
// "test" script), with Node's own type stripping as the transform. All of that set-up lives here.
/** @type {import('jest').Config} */
const config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // Sources import siblings as "./x.js" (NodeNext); map those to the .ts files under test.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': '<rootDir>/test/jest/strip-types-transformer.js' },
  testMatch: ['<rootDir>/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/bench/'],
  // One real control plane for the whole run; every test file gets a namespace of its own.
  globalSetup: '<rootDir>/test/jest/global-setup.js',
  globalTeardown: '<rootDir>/test/jest/global-teardown.js',
  // Each file's duration in the output, and the run against the suite's budget (5 minutes on
  // the CI machine's 2 cores).
  reporters: [
    'default',
    ['<rootDir>/test/jest/durations-reporter.js', { suiteBudgetSeconds: 300 }],
  ],
  testTimeout: 120_000,
  // The slowest files first, by a recorded run: a fresh checkout has no timings of its own.
  testSequencer: '<rootDir>/test/jest/slowest-first-sequencer.js',
  // Most of a test file's time is waiting (for the namespace controller's 5 s grace, guests,
  // agents, watches): with two workers on two cores the run used under half of the CPU, three
  // still leave it idle at times. No test times a real deadline across processes any more
  // (leader-election's renew deadline is shown on the test clock), so a fourth is safe.
  maxWorkers: 4,
};

export default config;
