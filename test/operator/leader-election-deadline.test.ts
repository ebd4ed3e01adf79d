import { afterEach, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { ApiClient } from '../../client/kube/api-client.js';
import { isNotFound } from '../../client/kube/api-error.js';
import type { LeaseObject } from '../../operator/runtime/leader-election.js';
import { LEASES, LeaderElector } from '../../operator/runtime/leader-election.js';
import type { ProxiedRequest } from '../support/api-proxy.js';
import { ApiProxy, OVERLOADED } from '../support/api-proxy.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { useWorld } from '../support/world.js';

/*
 * The renew deadline on the test clock (docs/failure-modes.md#operator-down-killed-restarted-leader-lost): a leader whose renewals
 * are refused or never answered gives up exactly when its renew deadline since the last renewal
 * has passed, never before, and sends nothing more. The timings are far longer than the test, so
 * only advancing the clock moves the elector; the requests are real ones to the apiserver, through
 * a proxy that refuses them once told to. test/operator/leader-election.test.ts shows the same
 * across processes, with a standby taking over.
 */

const { ns } = useWorld({ namespace: 'leader-deadline' });
const MINUTE = 60_000;
const RETRY_PERIOD_MS = MINUTE;
const RENEW_DEADLINE_MS = 10 * MINUTE;
const LEASE_NAME = 'deadline.opdev.io';
/** Real time that may pass while the test looks (the clock also runs on). */
const SHORTLY = 5000;

const refusals = OVERLOADED;

describe('the leader-election renew deadline', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await ns.api.delete(LEASES, LEASE_NAME, ns.name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  });

  it.each(Object.keys(refusals))(
    'ends leadership when renewals are %s for the renew deadline, and not a moment before',
    async (refusal) => {
      const proxy = await ApiProxy.start();
      const client = new ApiClient(proxy.kubeConfig());
      cleanups.push(
        () => proxy.stop(),
        () => client.close(),
      );
      const lease = `/apis/coordination.k8s.io/v1/namespaces/${ns.name}/leases/${LEASE_NAME}`;
      let refusing = false;
      let refused: ProxiedRequest[] = [];
      let nextRefusal: (() => void) | undefined;
      proxy.route = (request) => {
        if (!refusing || !request.path.startsWith(lease)) return { kind: 'forward' };
        refused.push(request);
        nextRefusal?.();
        return refusals[refusal]!;
      };
      const refusedOnce = (): Promise<void> => new Promise((resolve) => (nextRefusal = resolve));

      const clock = new TestClock();
      const elector = new LeaderElector({
        client,
        namespace: ns.name,
        name: LEASE_NAME,
        identity: 'deadline-test',
        leaseDurationMs: 15 * MINUTE,
        renewDeadlineMs: RENEW_DEADLINE_MS,
        retryPeriodMs: RETRY_PERIOD_MS,
        clock,
        logger: pino({ level: 'silent' }),
      });
      const stop = new AbortController();
      cleanups.push(() => Promise.resolve(stop.abort()));
      expect(await elector.acquire(stop.signal)).toBe(true);
      // When the elector began the renewal it counts from, as it wrote it into the lease.
      const renewTime = (): Promise<number> =>
        ns.api
          .get<LeaseObject>(LEASES, LEASE_NAME, ns.name)
          .then((record) => Date.parse(record.spec!.renewTime!));
      const renewedAt = await renewTime();

      let lost: string | undefined;
      const holding = elector.holdUntilLost(stop.signal).then((reason) => (lost = reason));
      refusing = true;
      // The first renewal, a retry period on, is refused (or left unanswered).
      const first = refusedOnce();
      clock.advance(RETRY_PERIOD_MS);
      await first;
      // Up to shortly before the deadline, the leader goes on trying: a 429 is retried
      // within the attempt (the next refusal shows it), a stalled request stays open.
      const next = refusedOnce();
      clock.advance(renewedAt + RENEW_DEADLINE_MS - SHORTLY - clock.now());
      if (refusal === 'answered with 429') await next;
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(lost).toBeUndefined();
      expect(refused.length).toBeGreaterThan(0);

      // At the deadline, by the clock: the attempt under way is cut off and leadership ends.
      clock.advance(2 * SHORTLY);
      await holding;
      expect(lost).toBe(
        `the lease was not renewed within the renew deadline (${RENEW_DEADLINE_MS} ms)`,
      );
      // Nothing is sent for the lease after that, however far time goes.
      refused = [];
      clock.advance(RENEW_DEADLINE_MS);
      await new Promise((resolve) => setImmediate(resolve));
      expect(refused).toEqual([]);
      expect(await renewTime()).toBe(renewedAt);
    },
  );
});
