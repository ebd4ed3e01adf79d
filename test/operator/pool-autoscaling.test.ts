import { afterAll, describe, expect, it } from '@jest/globals';
import { CONFIG_MAPS, EVENTS } from '../../client/api/core-resources.js';
import type { ClusterInstance, ClusterPool } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { decodeHistory } from '../../operator/controllers/clusterpool/autoscaling/history-codec.js';
import {
  slotOf,
  slotStart,
} from '../../operator/controllers/clusterpool/autoscaling/week-slots.js';
import {
  COUNTED_KEY,
  HISTORY_KEY,
  historyConfigMapName,
} from '../../operator/controllers/clusterpool/demand-history-store.js';
import type { ConfigMap } from '../../operator/kube/workloads.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import type { CoreEvent } from '../support/events.js';
import { hcpPool, lease, releaseLeasesAndPools } from '../support/fixtures/pool-fixtures.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { useWorld } from '../support/world.js';

const world = useWorld({ namespace: 'autoscale', enabled: true });
const { ns } = world;
const MINUTE = 60_000;
const WEEK = 7 * 24 * 60 * MINUTE;
const ALL_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

type Autoscaling = NonNullable<ClusterPool['status']>['autoscaling'];

async function poolUntil(
  name: string,
  until: (pool: ClusterPool) => boolean,
): Promise<ClusterPool> {
  const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
    type: POOLS,
    namespace: ns.name,
    name,
    until: (p) => !!p && until(p),
    description: `ClusterPool ${name}'s spares`,
  });
  return pool!;
}

const spares = (
  name: string,
  until: (a: NonNullable<Autoscaling>) => boolean,
): Promise<ClusterPool> =>
  poolUntil(name, (p) => !!p.status?.autoscaling && until(p.status.autoscaling));

async function eventOn(pool: string, reason: string, message: RegExp): Promise<CoreEvent> {
  const about = (e: CoreEvent): boolean =>
    e.involvedObject.name === pool && e.reason === reason && message.test(e.message);
  const events = await waitForList<CoreEvent>(ns.kubeConfig, {
    type: EVENTS,
    namespace: ns.name,
    until: (items) => items.some(about),
    description: `a ${reason} Event on ClusterPool ${pool} matching ${message}`,
  });
  return events.find(about)!;
}

async function instancesOf(pool: string, until: (n: number) => boolean): Promise<number> {
  const mine = (i: ClusterInstance): boolean => i.spec.poolRef?.name === pool;
  const list = await waitForList<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace: ns.name,
    until: (items) => until(items.filter(mine).length),
    description: `the instances of ${pool}`,
  });
  return list.filter(mine).length;
}

async function history(
  pool: string,
  until: (cm: ConfigMap) => boolean = () => true,
): Promise<ConfigMap> {
  const cm = await waitFor<ConfigMap>(ns.kubeConfig, {
    type: CONFIG_MAPS,
    namespace: ns.name,
    name: historyConfigMapName(pool),
    until: (c) => !!c && until(c),
  });
  return cm!;
}

async function leases(pool: string, prefix: string, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      ns.api.create(LEASES, lease(ns.name, `${prefix}-${i}`, pool)),
    ),
  );
}

/** A change to the pool's metadata: a pass now, on the operator's clock. */
let pokes = 0;
async function poke(pool: string): Promise<void> {
  pokes += 1;
  await ns.api.patch(
    POOLS,
    { name: pool, namespace: ns.name },
    { metadata: { annotations: { 'test.guestcluster.opdev.io/poke': String(pokes) } } },
  );
}

/** The next 08:00 in `timeZone` after `ms`, found minute by minute with Intl, as a person reads it. */
function nextEight(ms: number, timeZone: string): number {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  let at = Math.ceil(ms / MINUTE) * MINUTE;
  while (format.format(at) !== '08:00') at += MINUTE;
  return at;
}

describe('adaptive warm spares and schedules', () => {
  const clock = new TestClock();
  let manager: Manager;
  afterAll(async () => {
    if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
  });

  it('refuses a bad spec in the schema, naming the field', async () => {
    const refusal = (spec: Partial<ClusterPool['spec']>): Promise<unknown> =>
      ns.api.create(POOLS, hcpPool(ns.name, 'refused', { maxSize: 4, ...spec })).then(
        () => 'created',
        (error: Error) => error.message,
      );
    expect(await refusal({ autoscaling: { minSpares: 3, maxSpares: 2 } })).toContain(
      'spec.autoscaling.minSpares must not exceed spec.autoscaling.maxSpares',
    );
    expect(await refusal({ autoscaling: { maxSpares: 9 } })).toContain(
      'spec.autoscaling.maxSpares must not exceed spec.maxSize',
    );
    expect(
      await refusal({ autoscaling: { maxSpares: 2, scaleDownDelay: '15 minutes' } }),
    ).toContain('spec.autoscaling.scaleDownDelay must be a Go duration');
    expect(await refusal({ autoscaling: { maxSpares: 2, targetRunOutPercent: 100 } })).toContain(
      'spec.autoscaling.targetRunOutPercent',
    );
    const rule = { days: ['Mon' as const], from: '08:00', to: '18:00', warmSpares: 2 };
    const schedule = (r: Partial<typeof rule>) => ({
      schedule: { timeZone: 'UTC', rules: [{ ...rule, ...r }] },
    });
    expect(await refusal(schedule({ from: '8:00' }))).toContain('spec.schedule.rules[0].from');
    expect(await refusal(schedule({ from: '18:00', to: '08:00' }))).toContain(
      'spec.schedule.rules[].to must be later than from',
    );
    expect(await refusal(schedule({ warmSpares: 5 }))).toContain(
      'spec.schedule.rules[].warmSpares must not exceed spec.maxSize',
    );
    expect(
      await refusal({ autoscaling: { maxSpares: 1 }, ...schedule({ warmSpares: 2 }) }),
    ).toContain('spec.schedule.rules[].warmSpares must not exceed spec.autoscaling.maxSpares');
  });

  it('raises the spares on a burst at once and creates them', async () => {
    manager = await world.startOperator({ clock });
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'burst', { maxSize: 40, autoscaling: { maxSpares: 30 } }),
    );
    await spares('burst', (a) => a.desiredSpares === 0);
    await history('burst');

    await leases('burst', 'b', 12);
    // 12 leases in a few seconds: about 1.2/min × 15 min, and the margin for bursts.
    const raised = await spares('burst', (a) => (a.desiredSpares ?? 0) >= 20);
    expect(raised.status!.autoscaling!.reason).toMatch(
      /leases\/min lately × 15 min provisioning, \+\d+ for bursts \(5% run-out\)/,
    );
    await eventOn('burst', 'SparesChanged', /^Desired spares \d+ → \d+: /);
    // The 12 creates may land in more than one pass, each raising the spares again: once all 12
    // are counted, the value stops moving while the pool creates its instances one per pass.
    await history(
      'burst',
      (cm) => decodeHistory(cm.data?.[HISTORY_KEY], clock.now()).history.openSlotCount === 12,
    );
    let desired = raised.status!.autoscaling!.desiredSpares!;
    for (let followed = -1; followed !== desired;) {
      followed = desired;
      await instancesOf('burst', (n) => n >= followed);
      desired = (await spares('burst', () => true)).status!.autoscaling!.desiredSpares!;
    }
    expect(desired).toBeLessThanOrEqual(30);
    // More instances than the 12 waiting leases need: the spares for the next ones.
    expect(await instancesOf('burst', (n) => n === desired)).toBe(desired);
    const gauge = await manager.metrics.registry
      .getSingleMetric('guestcluster_pool_desired_spares')!
      .get();
    expect(gauge.values).toContainEqual(
      expect.objectContaining({ labels: { namespace: ns.name, pool: 'burst' }, value: desired }),
    );
  });

  it('holds the spares for scaleDownDelay, then steps down halfway', async () => {
    const peak = (await spares('burst', () => true)).status!.autoscaling!.desiredSpares!;
    clock.advance(10 * MINUTE);
    await poke('burst');
    const held = await spares('burst', (a) => a.reason?.includes('held until') ?? false);
    expect(held.status!.autoscaling!.desiredSpares).toBe(peak);

    // Past the delay: the pass the pool asked for at its end steps halfway to the target.
    clock.advance(6 * MINUTE);
    const stepped = await spares('burst', (a) => (a.desiredSpares ?? peak) < peak);
    const after = stepped.status!.autoscaling!.desiredSpares!;
    expect(after).toBeGreaterThanOrEqual(Math.floor(peak / 2));
    await eventOn('burst', 'SparesChanged', new RegExp(`^Desired spares ${peak} → ${after}: `));
  });

  it('keeps its learned week across an operator restart, counting no lease twice', async () => {
    const before = await history('burst');
    const decoded = decodeHistory(before.data?.[HISTORY_KEY], clock.now());
    expect(decoded.problem).toBeUndefined();
    // The burst's slot has ended and was learned: its 12 arrivals.
    const burstSlot = slotOf(decoded.history.recentAt);
    expect(decoded.history.weekly[burstSlot]).toBe(12);
    const learnedAt = slotStart(decoded.history.recentAt);

    await manager.stop();
    manager = await world.startOperator({ clock });
    // One new lease: the new operator counts it, and none of the 12 again.
    await leases('burst', 'r', 1);
    const after = await history(
      'burst',
      (cm) => cm.data?.[COUNTED_KEY] !== before.data?.[COUNTED_KEY],
    );
    const reread = decodeHistory(after.data?.[HISTORY_KEY], clock.now()).history;
    expect(reread.openSlotCount).toBe(1);
    expect(reread.weekly[burstSlot]).toBe(12);

    // A week later, shortly before the burst's slot: the spares are up before the leases come.
    clock.advance(learnedAt + WEEK - 10 * MINUTE - clock.now());
    const ahead = await spares('burst', (a) => a.reason?.includes('expected at') ?? false);
    expect(ahead.status!.autoscaling!.desiredSpares).toBeGreaterThanOrEqual(12);
  });

  it('changes the spares at a schedule boundary in the pool time zone', async () => {
    const zone = 'America/New_York';
    const eight = nextEight(clock.now() + 2 * MINUTE, zone);
    clock.advance(eight - MINUTE - clock.now());
    const rules = [{ days: [...ALL_DAYS], from: '08:00', to: '18:00', warmSpares: 3 }];
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'office', {
        maxSize: 5,
        warmSpares: 1,
        schedule: { timeZone: zone, rules },
      }),
    );
    const early = await spares('office', (a) => a.desiredSpares === 1);
    expect(early.status!.autoscaling!.reason).toContain('no schedule rule holds now');
    expect(await instancesOf('office', (n) => n === 1)).toBe(1);

    // 08:00 in New York: the pass the pool asked for at the boundary.
    clock.advance(2 * MINUTE);
    const office = await spares('office', (a) => a.desiredSpares === 3);
    expect(office.status!.autoscaling!.reason).toBe(
      `3 spares: schedule rule 1 (Mon,Tue,Wed,Thu,Fri,Sat,Sun 08:00–18:00 ${zone})`,
    );
    await eventOn('office', 'SparesChanged', /^Desired spares 1 → 3: /);
    expect(await instancesOf('office', (n) => n === 3)).toBe(3);
  });

  it('says so when the time zone is unknown, and keeps spec.warmSpares', async () => {
    const rules = [{ days: [...ALL_DAYS], from: '00:00', to: '24:00', warmSpares: 2 }];
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'mars', {
        maxSize: 3,
        warmSpares: 1,
        schedule: { timeZone: 'Mars/Olympus', rules },
      }),
    );
    const pool = await spares('mars', (a) => a.desiredSpares === 1);
    expect(pool.status!.conditions).toContainEqual(
      expect.objectContaining({
        type: 'ScheduleValid',
        status: 'False',
        reason: 'InvalidTimeZone',
      }),
    );
    await eventOn('mars', 'InvalidTimeZone', /spec\.schedule\.timeZone "Mars\/Olympus"/);
  });

  it('never asks beyond maxSpares nor creates beyond maxSize, whatever the burst', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'small', { maxSize: 4, minSize: 1, autoscaling: { maxSpares: 4 } }),
    );
    await spares('small', () => true);
    await leases('small', 's', 10);
    // Once the ten are counted the policy would ask for more than four: the cap says so.
    const capped = await spares(
      'small',
      (a) => a.reason?.includes('capped by maxSpares 4') ?? false,
    );
    expect(capped.status!.autoscaling!.desiredSpares).toBe(4);
    // Ten leases wait, and the pool stops at its maxSize.
    let most = 0;
    await instancesOf('small', (n) => {
      most = Math.max(most, n);
      return n === 4;
    });
    const full = await poolUntil('small', (p) => p.status?.totalInstances === 4);
    expect(full.status!.autoscaling!.desiredSpares).toBe(4);
    expect(most).toBe(4);
  });

  it('runs, of the spares of a pool that hibernates, those that cover one resume time', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'sleepy', {
        maxSize: 40,
        autoscaling: { maxSpares: 30 },
        hibernation: { runningSpares: 1, hibernateAfter: '30m' },
      }),
    );
    // No spares yet: none to run, whatever the floor.
    await spares('sleepy', (a) => a.desiredSpares === 0 && a.runningSpares === 0);
    await leases('sleepy', 'h', 12);
    const raised = await spares('sleepy', (a) => (a.desiredSpares ?? 0) >= 20);
    const { desiredSpares, runningSpares, reason } = raised.status!.autoscaling!;
    // A resume (5 min for hcp) is shorter than a provisioning (15 min): fewer need to run.
    expect(runningSpares).toBeGreaterThan(1);
    expect(runningSpares).toBeLessThan(desiredSpares!);
    expect(reason).toMatch(new RegExp(`; ${runningSpares} running, covering a 5 min resume$`));
  });

  it('refuses a forged history, says so, and learns afresh', async () => {
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'forged', { maxSize: 4, autoscaling: { maxSpares: 4 } }),
    );
    await spares('forged', () => true);
    const stored = await history('forged');
    // A tenant may write ConfigMaps in its namespace: numbers out of range.
    await ns.api.update(CONFIG_MAPS, {
      ...stored,
      data: { ...stored.data, [HISTORY_KEY]: '{"v":1,"w":"zz","o":[1,2,3,4,-5]}' },
    });
    await leases('forged', 'f', 1);
    const refused = await poolUntil(
      'forged',
      (p) => p.status?.conditions?.some((c) => c.reason === 'HistoryRefused') ?? false,
    );
    const condition = refused.status!.conditions!.find((c) => c.type === 'DemandHistoryUsable')!;
    expect(condition.message).toMatch(/the stored history is malformed.*learns its demand afresh/);
    await eventOn('forged', 'DemandHistoryRefused', /the stored history is malformed/);
    // The pool's own history replaces the forged text.
    const rewritten = await history(
      'forged',
      (cm) => cm.data?.[HISTORY_KEY] !== '{"v":1,"w":"zz","o":[1,2,3,4,-5]}',
    );
    expect(decodeHistory(rewritten.data?.[HISTORY_KEY], clock.now()).problem).toBeUndefined();
  });
});
