import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fetch } from 'undici';
import { isNotFound } from '../../client/kube/api-error.js';
import type { LeaseObject } from '../../operator/runtime/leader-election.js';
import { writeSecretFile } from '../../dev/control-plane/kubeconfig-file.js';
import { ApiProxy, OVERLOADED } from '../support/api-proxy.js';
import { useWorld } from '../support/world.js';
import { resourceType } from '../../client/kube/resource-type.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';

const { ns } = useWorld({ namespace: 'leader' });
const LEASES = resourceType('coordination.k8s.io/v1', 'Lease', 'leases');
const LEASE_NAME = '28494864.opdev.io';
// Shorter than the defaults (15s, 10s, 2s) so that a takeover is quick, but with a renew
// deadline that a busy test machine (the whole suite, crc guests included, on 2 cores) still
// meets: a leader that cannot renew in time stops itself, as it must.
const LEASE_DURATION_MS = 8000;
const ELECTION_ARGS = [
  '--leader-elect',
  '--leader-elect-lease-duration=8s',
  '--leader-elect-renew-deadline=6s',
  '--leader-elect-retry-period=1s',
];

const RENEW_DEADLINE_MS = 6000;

const holder = (lease: LeaseObject | undefined): string => lease?.spec?.holderIdentity ?? '';

/** When the operator logged `message` first (epoch milliseconds), from its JSON log lines. */
function loggedAt(process: OperatorProcess, message: string): number | undefined {
  for (const line of process.output().split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; time?: string };
    if (entry.msg === message) return Date.parse(entry.time!);
  }
  return undefined;
}

function leaseHeldBy(prefix: string, timeoutMs = 30_000): Promise<LeaseObject | undefined> {
  return waitFor<LeaseObject>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name: LEASE_NAME,
    until: (lease) => holder(lease).startsWith(prefix),
    timeoutMs,
    description: `the leader-election lease to be held by ${prefix}`,
  });
}

async function metric(process: OperatorProcess, name: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${process.metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('leader election', () => {
  const processes: OperatorProcess[] = [];
  const proxies: ApiProxy[] = [];
  const start = async (
    identity: string,
    args = ELECTION_ARGS,
    env: NodeJS.ProcessEnv = {},
  ): Promise<OperatorProcess> => {
    const started = await startOperatorProcess({ identity, namespace: ns.name, args, env });
    processes.push(started);
    return started;
  };
  // Each test starts with no operator running and no lease, whatever the one before left.
  afterEach(async () => {
    const started = processes.splice(0);
    for (const p of started)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(started.map((p) => p.exited));
    await Promise.all(proxies.splice(0).map((p) => p.stop()));
    await ns.api.delete(LEASES, LEASE_NAME, ns.name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  });

  it('runs one leader; a standby takes over once the lease has expired when the leader is killed', async () => {
    const first = await start('op-a');
    await leaseHeldBy('op-a_');
    const second = await start('op-b');
    await second.logged('Waiting to acquire the leader-election lease');
    // The standby is alive and ready, but not leading.
    const standbyReady = await fetch(`http://127.0.0.1:${second.probePort}/readyz`);
    expect(await standbyReady.text()).toBe('ok (standby)\n');
    expect(await metric(second, 'guestcluster_leader')).toBe(0);
    expect(await metric(first, 'guestcluster_leader')).toBe(1);

    first.child.kill('SIGKILL');
    await first.exited;
    const lastRenewal = await ns.api.get<LeaseObject>(LEASES, LEASE_NAME, ns.name);
    expect(holder(lastRenewal)).toMatch(/^op-a_/);
    const takenOver = await leaseHeldBy('op-b_', 4 * LEASE_DURATION_MS);

    // Both processes share this host's clock: op-b took the lease only after a whole lease
    // duration without a renewal by op-a, never while op-a's last renewal was still valid.
    const gapMs =
      Date.parse(takenOver!.spec!.acquireTime!) - Date.parse(lastRenewal.spec!.renewTime!);
    expect(gapMs).toBeGreaterThanOrEqual(LEASE_DURATION_MS);
    expect(takenOver!.spec!.leaseTransitions).toBe(1);
    expect(await metric(second, 'guestcluster_leader')).toBe(1);

    // A graceful stop releases the lease at once and exits 0.
    second.child.kill('SIGTERM');
    const exit = await second.exited;
    // Its log, should it have stopped for another reason (the message says which).
    const log = exit.code === 0 ? '' : second.output();
    expect({ ...exit, log }).toEqual({ code: 0, signal: null, log: '' });
    const released = await waitFor<LeaseObject>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: LEASE_NAME,
      until: (l) => holder(l) === '',
    });
    expect(holder(released)).toBe('');
  });

  it('stops cleanly when told to just after it starts its controllers, every time', async () => {
    // Its informers' watches are still being set up when the stop comes: a watch cut off before
    // its response headers arrived used to crash the process as it closed its connections.
    const exits: { code: number | null; log: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const operator = await start(`op-stop${i}`);
      await operator.logged('Caches synced; starting controllers');
      // A few milliseconds in, while the controllers make their first passes.
      await delay(5);
      operator.child.kill('SIGTERM');
      const { code } = await operator.exited;
      exits.push({ code, log: code === 0 ? '' : operator.output() });
    }
    expect(exits.filter((e) => e.code !== 0)).toEqual([]);
    const released = await ns.api.get<LeaseObject>(LEASES, LEASE_NAME, ns.name);
    expect(holder(released)).toBe('');
  });

  it('stops the process when the lease is lost', async () => {
    const leader = await start('op-c');
    const held = await leaseHeldBy('op-c_');
    await ns.api.update(LEASES, {
      ...held!,
      spec: { ...held!.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 },
    });

    expect(await leader.exited).toEqual({ code: 1, signal: null });
    expect(leader.output()).toContain('lost leadership: the lease is now held by intruder');
  });

  // What an overloaded apiserver does to a renewal.
  const refusals = OVERLOADED;

  it.each(Object.keys(refusals))(
    'stops when renewals are %s, before a standby takes over',
    async (refusal) => {
      // The leader reaches the apiserver through a proxy that, once told to, refuses every
      // request for the election Lease; the standby talks to the apiserver directly.
      const proxy = await ApiProxy.start();
      proxies.push(proxy);
      const lease = `/apis/coordination.k8s.io/v1/namespaces/${ns.name}/leases/${LEASE_NAME}`;
      let refusing = false;
      proxy.route = (request) =>
        refusing && request.path.startsWith(lease) ? refusals[refusal]! : { kind: 'forward' };
      const kubeconfig = path.join(await mkdtemp(path.join(os.tmpdir(), 'gc-leader-')), 'config');
      await writeSecretFile(kubeconfig, proxy.kubeconfig());
      const leader = await start('op-d', ELECTION_ARGS, { KUBECONFIG: kubeconfig });
      await leaseHeldBy('op-d_');
      const standby = await start('op-e');
      await standby.logged('Waiting to acquire the leader-election lease');

      // Every version of the Lease from now on, until the standby holds it.
      const versions: LeaseObject[] = [];
      const takeover = waitFor<LeaseObject>(ns.kubeConfig, {
        type: LEASES,
        namespace: ns.name,
        name: LEASE_NAME,
        until: (l) => (l && versions.push(l), holder(l).startsWith('op-e_')),
        timeoutMs: 60_000,
        description: 'the standby to take the lease over',
      });
      refusing = true;
      expect(await leader.exited).toEqual({ code: 1, signal: null });
      const taken = await takeover;

      // When it stops, by the renew deadline on its clock, is shown on the test clock in
      // leader-election-deadline.test.ts; a loaded machine only delays it here.
      expect(versions.filter((l) => holder(l).startsWith('op-d_')).length).toBeGreaterThan(0);
      const stoppedAt = loggedAt(leader, 'Stopping the manager')!;
      // No overlap: the standby took over after the leader had stopped, and not one request of the
      // leader's reached the apiserver after that.
      const acquiredAt = Date.parse(taken!.spec!.acquireTime!);
      expect(acquiredAt).toBeGreaterThan(stoppedAt);
      const forwardedLater = proxy.requests.filter(
        (r) => r.at >= acquiredAt && !r.path.startsWith(lease),
      );
      expect(forwardedLater).toEqual([]);
      expect(leader.output()).toContain(
        `lost leadership: the lease was not renewed within the renew deadline (${RENEW_DEADLINE_MS} ms)`,
      );
    },
  );

  it('refuses an invalid configuration before it touches the cluster', async () => {
    const refused = await startOperatorProcess({
      identity: 'op-bad',
      namespace: ns.name,
      args: [...ELECTION_ARGS, '--workers=0', '--log-level=loud', '--watch-namespace=Not_A_Name'],
    });
    expect(await refused.exited).toEqual({ code: 2, signal: null });
    expect(refused.output()).toContain('--workers must be an integer from 1 to 64 (got "0")');
    expect(refused.output()).toContain(
      '--log-level must be one of debug, info, warn, error (got "loud")',
    );
    expect(refused.output()).toContain(
      '--watch-namespace must be a namespace name (got "Not_A_Name")',
    );
    // It wrote nothing: there is still no lease.
    const leases = await ns.api.list<LeaseObject>(LEASES, { namespace: ns.name });
    expect(leases.items).toEqual([]);
  });
});
