import { afterAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { ApiClient } from '../../client/kube/api-client.js';
import type { LeaseObject } from '../../operator/runtime/leader-election.js';
import { LEASES, LeaderElector } from '../../operator/runtime/leader-election.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { useWorld } from '../support/world.js';

/*
 * A graceful handover (docs/install.md#upgrade): the leader gives the Lease up, a standby takes
 * it. The Lease counts it as a transition, as a takeover after expiry does, so that its record
 * shows every change of leader (client-go's leaderelection counts both alike).
 */
const { ns } = useWorld({ namespace: 'leader-handover' });
const LEASE_NAME = 'handover.opdev.io';

describe('a leader that releases the lease', () => {
  const client = new ApiClient(ns.kubeConfig);
  afterAll(() => client.close());
  const elector = (identity: string): LeaderElector =>
    new LeaderElector({
      client,
      namespace: ns.name,
      name: LEASE_NAME,
      identity,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock: new TestClock(),
      logger: pino({ level: 'silent' }),
    });
  const lease = (): Promise<LeaseObject> => ns.api.get<LeaseObject>(LEASES, LEASE_NAME, ns.name);

  it('hands it to the next holder, which counts a transition and records when it took it', async () => {
    const stop = new AbortController();
    const [first, second] = [elector('first'), elector('second')];
    expect(await first.acquire(stop.signal)).toBe(true);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'first', leaseTransitions: 0 });
    await first.release();
    const released = await lease();
    expect(released.spec?.holderIdentity).toBe('');

    expect(await second.acquire(stop.signal)).toBe(true);
    const taken = await lease();
    expect(taken.spec).toMatchObject({ holderIdentity: 'second', leaseTransitions: 1 });
    expect(taken.spec!.acquireTime).not.toBe(released.spec!.acquireTime);
    stop.abort();
  });
});
