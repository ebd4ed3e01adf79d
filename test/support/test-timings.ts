import type { InstanceTimings } from '../../operator/timings.js';

/**
 * The instance controllers' waits for tests. In production they are tens of seconds because
 * nothing reports their end (a crc guest API coming up, a HyperShift endpoint, unwatched platform
 * operands); here the simulated platform answers in milliseconds, so a test that reaches one of
 * them would otherwise sit out the production wait. Every test operator takes them from here.
 * The handoff grace stays a few seconds: it decides when a missing handoff counts as lost. A crc
 * teardown waits on launcher pods, which nothing watches, once per instance: half a second.
 */
export const TEST_INSTANCE_TIMINGS: Partial<InstanceTimings> = {
  recheckMs: 500,
  readyRecheckMs: 2_000,
  handoffGraceMs: 5_000,
  endpointRecheckMs: 500,
  platformRecheckMs: 500,
  teardownResyncMs: 500,
  // A guest's readiness gates: a new Ready guest is checked at once; the recheck that notices a
  // guest breaking is guest-health.test.ts's to shorten (every check costs the guest four reads).
  guestHealthRecheckMs: 10_000,
};
