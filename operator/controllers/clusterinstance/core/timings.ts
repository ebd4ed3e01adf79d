/**
 * The instance controllers' waits. Production runs with the defaults; tests pass shorter ones
 * where they would otherwise wait out real time. Business time (the clock) measures all of them.
 */
export interface InstanceTimings {
  /** A wait nothing reports the end of (a crc guest API, a crc boot key): looked at again after this long. */
  recheckMs: number;
  /** The periodic health check of a Ready crc instance (spec §2.3.3). */
  readyRecheckMs: number;
  /** After the agent Job completes, its handoff may take this long to reach the cache (spec §2.0). */
  handoffGraceMs: number;
  /** An hcp guest API that does not answer on its external endpoint yet. */
  endpointRecheckMs: number;
  /** Platform operands are not watched: while one is not ready, look again after this long. */
  platformRecheckMs: number;
  /** A slow safety pass while teardown waits on objects that are not watched (launcher pods). */
  teardownResyncMs: number;
  /** After this long the Terminating condition says CleanupTimedOut; the finalizer stays (spec §2.3.7). */
  cleanupTimeoutMs: number;
}

export const DEFAULT_INSTANCE_TIMINGS: Readonly<InstanceTimings> = Object.freeze({
  recheckMs: 20_000,
  readyRecheckMs: 60_000,
  handoffGraceMs: 30_000,
  endpointRecheckMs: 20_000,
  platformRecheckMs: 20_000,
  teardownResyncMs: 60_000,
  cleanupTimeoutMs: 15 * 60_000,
});

/** The defaults with the given waits instead; each must be a positive number of milliseconds. */
export function instanceTimings(overrides: Partial<InstanceTimings> = {}): InstanceTimings {
  const timings = { ...DEFAULT_INSTANCE_TIMINGS, ...overrides };
  for (const [name, value] of Object.entries(timings))
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(
        `instance timing ${name} must be a positive number of milliseconds, not ${value}`,
      );
  return timings;
}
