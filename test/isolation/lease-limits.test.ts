import path from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { LABEL_LEASE_HELD } from '../../contracts/labels.js';
import { findCondition } from '../../operator/api/conditions.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { installCrds, readCrdFolder } from '../../dev/control-plane/install-crds.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { eventFor } from '../support/events.js';
import { useWorld } from '../support/world.js';
import {
  hcpPool,
  lease,
  poolInstance,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';

/**
 * A pool's limits on its leases (spec.maxLeaseDuration, spec.maxHoldDuration) hold on every path
 * a lease can take to them, also where no admission policy looks: a control plane of this file's
 * own, with the project's CRDs and nothing else, as a cluster where the policies were never
 * installed. The operator itself checks the limits when it binds and whenever the TTL changes.
 */
const world = useWorld({ namespace: 'limits', enabled: true, controlPlane: 'own' });
const { ns } = world;
const MINUTE = 60_000;
const clock = new TestClock();

beforeAll(async () => {
  await installCrds(ns.kubeConfig, await readCrdFolder(path.join(projectRoot(), 'crds')));
  await world.startOperator({ clock });
});

const leaseOf = (name: string): Promise<ClusterLease> =>
  ns.api.get<ClusterLease>(LEASES, name, ns.name);

function leaseUntil(
  name: string,
  description: string,
  until: (lease: ClusterLease) => boolean,
): Promise<ClusterLease | undefined> {
  return waitFor<ClusterLease>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name,
    until: (l) => !!l && until(l),
    description: `ClusterLease ${name}: ${description}`,
  });
}

const accepted = (l: ClusterLease): string | undefined =>
  findCondition(l.status?.conditions, 'TTLAccepted')?.status;
const readyReason = (l: ClusterLease): string | undefined =>
  findCondition(l.status?.conditions, 'Ready')?.reason;
const waitingFor = (name: string, reason: string): Promise<ClusterLease | undefined> =>
  leaseUntil(
    name,
    `Pending with ${reason}`,
    (l) => l.status?.phase === 'Pending' && readyReason(l) === reason,
  );
const bound = (name: string): Promise<ClusterLease | undefined> =>
  leaseUntil(name, 'Bound', (l) => l.status?.phase === 'Bound');

async function readyInstance(pool: string, name: string): Promise<void> {
  await createPoolInstance(ns.api, poolInstance(ns.name, pool, name));
  await settleInstance(ns.api, ns.name, name);
}

const patchLease = (name: string, patch: object): Promise<unknown> =>
  ns.api.patch(LEASES, { name, namespace: ns.name }, patch);

describe('the pool a lease was made for', () => {
  it('cannot be changed: the schema refuses a new spec.poolRef, naming the field', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'wanderer', 'nowhere'));
    await waitingFor('wanderer', 'PoolNotFound');
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'capped-2h', { maxSize: 1, maxLeaseDuration: '2h' }),
    );
    await expect(
      patchLease('wanderer', { spec: { poolRef: { name: 'capped-2h' } } }),
    ).rejects.toThrow(
      'spec.poolRef: Invalid value: spec.poolRef is immutable; create another ClusterLease to use another pool',
    );
    expect((await leaseOf('wanderer')).spec.poolRef.name).toBe('nowhere');
  });
});

describe('a lease created before its pool, or before its cap', () => {
  it('binds only once its TTL is within the limits of the pool that appeared', async () => {
    await ns.api.create(LEASES, lease(ns.name, 'early', 'later'));
    await waitingFor('early', 'PoolNotFound');
    await ns.api.create(POOLS, hcpPool(ns.name, 'later', { maxSize: 1, maxLeaseDuration: '1h' }));
    await readyInstance('later', 'later-0');
    const refused = await waitingFor('early', 'TTLRequired');
    expect(findCondition(refused!.status?.conditions, 'Ready')?.message).toContain(
      'spec.ttl is required: ClusterPool later limits its leases to spec.maxLeaseDuration 1h',
    );
    expect(
      (
        await eventFor(
          ns.kubeConfig,
          ns.name,
          { kind: 'ClusterLease', name: 'early' },
          'TTLRequired',
        )
      ).type,
    ).toBe('Warning');
    // Nothing is clamped: the lease binds as it is once its own TTL fits.
    await patchLease('early', { spec: { ttl: '45m' } });
    const done = await bound('early');
    expect(Date.parse(done!.status!.expiresAt!) - Date.parse(done!.status!.boundTime!)).toBe(
      45 * MINUTE,
    );
  });

  it('waits when a cap set later is below its TTL, also with a Ready instance', async () => {
    // minSize 1: the pool keeps its instance whatever the demand.
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'tightened', { maxSize: 1, minSize: 1, warmSpares: 0 }),
    );
    await ns.api.create(LEASES, lease(ns.name, 'five-hours', 'tightened', '5h'));
    await waitingFor('five-hours', 'WaitingForCapacity');
    // The pool makes its instance; it stays unsettled (provisioning) for now.
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'tightened-0',
      until: (i) => !!i,
      description: 'the pool to create an instance for the waiting lease',
    });
    await ns.api.patch(
      POOLS,
      { name: 'tightened', namespace: ns.name },
      { spec: { maxLeaseDuration: '2h' } },
    );
    const refused = await waitingFor('five-hours', 'TTLAbovePoolLimit');
    expect(findCondition(refused!.status?.conditions, 'Ready')?.message).toContain(
      'spec.ttl 5h is above what ClusterPool tightened allows: spec.maxLeaseDuration 2h, counted from binding',
    );
    expect(refused!.status?.queuePosition).toBeUndefined();
    await settleInstance(ns.api, ns.name, 'tightened-0');
    // A Ready instance and a lease that may not take it: the lease keeps waiting.
    await ns.api.patch(
      LEASES,
      { name: 'five-hours', namespace: ns.name },
      { metadata: { annotations: { poke: '1' } } },
    );
    expect(readyReason(await leaseOf('five-hours'))).toBe('TTLAbovePoolLimit');
    await patchLease('five-hours', { spec: { ttl: '2h' } });
    await bound('five-hours');
  });
});

describe('a bound lease', () => {
  it('does not take a TTL beyond its pool cap: it keeps its deadline and says why', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'two-hours', { maxSize: 1, maxLeaseDuration: '2h' }),
    );
    await readyInstance('two-hours', 'two-hours-0');
    await ns.api.create(LEASES, lease(ns.name, 'job', 'two-hours', '1h'));
    const first = await bound('job');
    const boundTime = Date.parse(first!.status!.boundTime!);
    const at = (ms: number): string => new Date(boundTime + ms).toISOString().replace('.000', '');

    await patchLease('job', { spec: { ttl: '3h' } });
    const refused = await leaseUntil(
      'job',
      'TTLAccepted False',
      (l) => findCondition(l.status?.conditions, 'TTLAccepted')?.status === 'False',
    );
    expect(refused!.status?.expiresAt).toBe(at(60 * MINUTE));
    expect(findCondition(refused!.status?.conditions, 'TTLAccepted')).toMatchObject({
      reason: 'TTLAbovePoolLimit',
      message: expect.stringContaining(
        `spec.ttl 3h (until ${at(180 * MINUTE)}) reaches beyond what ClusterPool two-hours allows: spec.maxLeaseDuration 2h, counted from binding; the change was not taken and the lease keeps its deadline ${at(60 * MINUTE)}`,
      ),
    });
    expect(
      (
        await eventFor(
          ns.kubeConfig,
          ns.name,
          { kind: 'ClusterLease', name: 'job' },
          'TTLAbovePoolLimit',
        )
      ).type,
    ).toBe('Warning');
    expect(refused!.status?.phase).toBe('Bound');

    await patchLease('job', { spec: { ttl: '2h' } });
    const taken = await leaseUntil(
      'job',
      'TTLAccepted True',
      (l) => findCondition(l.status?.conditions, 'TTLAccepted')?.status === 'True',
    );
    expect(taken!.status?.expiresAt).toBe(at(120 * MINUTE));

    // A cap lowered after binding applies from the next TTL change: the deadline stays.
    await ns.api.patch(
      POOLS,
      { name: 'two-hours', namespace: ns.name },
      { spec: { maxLeaseDuration: '1h' } },
    );
    await patchLease('job', { metadata: { annotations: { poke: '1' } } });
    await patchLease('job', { spec: { ttl: '1h30m' } });
    const shorter = await leaseUntil(
      'job',
      'expiresAt moved earlier',
      (l) => l.status?.expiresAt === at(90 * MINUTE),
    );
    expect(findCondition(shorter!.status?.conditions, 'TTLAccepted')?.status).toBe('True');
    await patchLease('job', { spec: { ttl: '1h45m' } });
    const above = await leaseUntil(
      'job',
      'the raise refused',
      (l) => findCondition(l.status?.conditions, 'TTLAccepted')?.status === 'False',
    );
    expect(above!.status?.expiresAt).toBe(at(90 * MINUTE));
    // Removing the TTL is an extension without end: refused too.
    await patchLease('job', { spec: { ttl: null } });
    const endless = await leaseUntil(
      'job',
      'the removal refused',
      (l) =>
        !!findCondition(l.status?.conditions, 'TTLAccepted')?.message.startsWith(
          'removing spec.ttl',
        ),
    );
    expect(endless!.status?.expiresAt).toBe(at(90 * MINUTE));
  });
});

describe('holding a lease', () => {
  it('is refused before binding: a lease made held does not bind until the label goes', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'hold-early', {
        maxSize: 1,
        maxLeaseDuration: '2h',
        maxHoldDuration: '30m',
      }),
    );
    await readyInstance('hold-early', 'hold-early-0');
    await ns.api.create(LEASES, {
      ...lease(ns.name, 'pre-held', 'hold-early', '1h'),
      metadata: { name: 'pre-held', namespace: ns.name, labels: { [LABEL_LEASE_HELD]: 'true' } },
    });
    const refused = await waitingFor('pre-held', 'HeldBeforeBinding');
    expect(findCondition(refused!.status?.conditions, 'Ready')?.message).toContain(
      'a lease is held only after binding',
    );
    await patchLease('pre-held', { metadata: { labels: { [LABEL_LEASE_HELD]: null } } });
    const done = await bound('pre-held');
    expect(done!.status?.heldAt).toBeUndefined();
  });

  it('counts from the moment it was held, once, and never beyond maxHoldDuration from then', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'debug', { maxSize: 1, maxLeaseDuration: '2h', maxHoldDuration: '30m' }),
    );
    await readyInstance('debug', 'debug-0');
    await ns.api.create(LEASES, lease(ns.name, 'failed-job', 'debug', '2h'));
    const first = await bound('failed-job');
    const boundTime = Date.parse(first!.status!.boundTime!);

    // An hour in, the job fails and its post step holds the cluster for 30 more minutes.
    clock.advance(boundTime + 60 * MINUTE - clock.now());
    await patchLease('failed-job', {
      metadata: { labels: { [LABEL_LEASE_HELD]: 'true' } },
      spec: { ttl: '1h30m' },
    });
    const held = await leaseUntil('failed-job', 'heldAt recorded', (l) => !!l.status?.heldAt);
    const heldAt = Date.parse(held!.status!.heldAt!);
    expect(heldAt).toBeGreaterThanOrEqual(boundTime + 60 * MINUTE - 1000);
    const event = { kind: 'ClusterLease', name: 'failed-job' };
    expect((await eventFor(ns.kubeConfig, ns.name, event, 'Held')).type).toBe('Normal');
    await leaseUntil(
      'failed-job',
      'the 1h30m TTL taken',
      (l) => Date.parse(l.status!.expiresAt!) === boundTime + 90 * MINUTE,
    );

    // Beyond 2h from binding and beyond 30 minutes from the hold: refused.
    await patchLease('failed-job', { spec: { ttl: '2h45m' } });
    const long = await leaseUntil(
      'failed-job',
      'the long hold refused',
      (l) => accepted(l) === 'False',
    );
    expect(Date.parse(long!.status!.expiresAt!)).toBe(boundTime + 90 * MINUTE);
    // Within the pool's 2h from binding: taken, held or not.
    await patchLease('failed-job', { spec: { ttl: '2h' } });
    await leaseUntil('failed-job', 'the 2h TTL taken', (l) => accepted(l) === 'True');
    await patchLease('failed-job', { metadata: { labels: { [LABEL_LEASE_HELD]: null } } });

    // Labelled again 40 minutes later, the hold does not start anew: 2h10m is refused.
    clock.advance(40 * MINUTE);
    await patchLease('failed-job', {
      metadata: { labels: { [LABEL_LEASE_HELD]: 'true' } },
      spec: { ttl: '2h10m' },
    });
    const again = await leaseUntil(
      'failed-job',
      'the renewed hold refused',
      (l) => accepted(l) === 'False',
    );
    expect(again!.status?.heldAt).toBe(held!.status!.heldAt);
    expect(Date.parse(again!.status!.expiresAt!)).toBe(boundTime + 120 * MINUTE);
  });
});
