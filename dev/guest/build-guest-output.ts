import type { CommandOutcome } from './guest-machine.js';
import type { SimulatedBuildGuest } from './simulated-build-guest.js';

/** How the simulated build guest's scripts answer: their `result` lines, and the clock's forms. */
export const DAY_MS = 24 * 3600_000;

export const results = (facts: Record<string, string | number | boolean>): CommandOutcome => ({
  exitCode: 0,
  stdout: Object.entries(facts)
    .map(([key, value]) => `result ${key} ${String(value)}\n`)
    .join(''),
});

export const failure = (exitCode: number, stderr: string): CommandOutcome => ({
  exitCode,
  stderr: `${stderr}\n`,
});

/** The guest's `date -u +%s`. */
export const epoch = (guest: SimulatedBuildGuest): number => Math.floor(guest.clockMs() / 1000);

/** openssl's enddate form, spaces as `_`, as the scripts print it. */
export const enddate = (ms: number): string =>
  new Date(ms)
    .toUTCString()
    .replace(/^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/, '$2 $1 $4 $3 GMT')
    .replace(/ /g, '_');
