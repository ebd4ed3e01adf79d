import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as delay } from 'node:timers/promises';
import { fetch } from 'undici';
import type {
  ClusterInstance,
  ClusterLease,
  ClusterPool,
  CRCBundle,
  VersionStream,
} from '../../client/api/resources.js';
import {
  BUNDLES,
  INSTANCES,
  LEASES,
  POOLS,
  SECRETS,
  VERSION_STREAMS,
} from '../../client/api/resources.js';
import { isConflict } from '../../client/kube/api-error.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { auditLogPath } from '../../dev/control-plane/control-plane.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';
import { adminAccessFromFile } from '../../dev/support/admin-access.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { lastRelease, readReleaseRecord } from '../../dev/checks/crd-compat/released-crds.js';
import {
  DATA_VOLUMES,
  HOSTED_CLUSTERS,
  NODE_POOLS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../operator/api/platform-resources.js';
import { LEADER_ELECTION_ID } from '../../operator/config.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Secret } from '../../operator/kube/workloads.js';
import type { LeaseObject } from '../../operator/runtime/leader-election.js';
import { ObjectHistory } from '../support/object-history.js';
import {
  buildBundle,
  createBuildInputs,
  playBuild,
  guestApiBesidePlayedBuilds,
} from '../support/fixtures/bundle-build-player.js';
import {
  createCrcPrerequisites,
  manualCrcTemplate,
} from '../support/fixtures/crc-prerequisites.js';
import { waitForInstance, waitForLease } from '../support/fixtures/instance-waits.js';
import { hcpPool, lease } from '../support/fixtures/pool-fixtures.js';
import type { OperatorProcess } from '../support/runners/operator-process.js';
import { startOperatorProcess } from '../support/runners/operator-process.js';
import { TEST_INSTANCE_TIMINGS } from '../support/test-timings.js';
import { useWorld } from '../support/world.js';
import type { AuditedWrite } from './audited-writes.js';
import { auditedWrites } from './audited-writes.js';
import type { OperatorAccount } from './operator-account.js';
import { operatorAccount } from './operator-account.js';
import type { ReleaseBuild } from './release-build.js';
import { releaseBuild } from './release-build.js';

/*
 * The upgrade of docs/install.md#upgrade, from the last recorded release to this checkout: the
 * release's operator (built from the commit its crds/released/<version>/release.json names) runs
 * on the release's CRDs and leaves pools, Bound leases and a bundle build in the middle of a
 * step; then the current CRDs are applied, the current operator starts as a standby and takes
 * over once the release's stops. A control plane of the file's own, so that it starts with the
 * release's CRDs; the file's namespace is also the operator's (the build and the election live
 * there).
 */
const ROOT = projectRoot();
const RELEASE = lastRelease(ROOT)!.version;
const world = useWorld({
  namespace: 'upgrade',
  enabled: true,
  controlPlane: 'own',
  crds: path.join('crds', 'released', RELEASE),
  platform: {
    crc: { guestApi: guestApiBesidePlayedBuilds },
    hcp: true,
  },
});
const { ns } = world;

const ELECTION_LEASES = resourceType('coordination.k8s.io/v1', 'Lease', 'leases');
const PREVIOUS = 'operator-previous';
const CURRENT = 'operator-current';
const BUNDLE = 'upgrade-build';
/** A crc guest boots and is finished by the real agent: minutes on a busy machine. */
const BIND_TIMEOUT_MS = 8 * 60_000;
/** The kinds that hold guests: none may be created or deleted by the upgrade. */
const GUEST_KINDS: ResourceType[] = [
  INSTANCES,
  VIRTUAL_MACHINES,
  VIRTUAL_MACHINE_INSTANCES,
  DATA_VOLUMES,
  HOSTED_CLUSTERS,
  NODE_POOLS,
];
/** What the current operator's first pass must not write (status subresources aside). */
const KEPT_RESOURCES = [
  'secrets',
  'clusterpools.guestcluster.opdev.io',
  'clusterleases.guestcluster.opdev.io',
  'clusterinstances.guestcluster.opdev.io',
  'crcbundles.guestcluster.opdev.io',
  'virtualmachines.kubevirt.io',
  'virtualmachineinstances.kubevirt.io',
  'datavolumes.cdi.kubevirt.io',
  'hostedclusters.hypershift.openshift.io',
  'nodepools.hypershift.openshift.io',
];
/** Every kind of ours that the release stored an object of here. */
const OUR_KINDS: ResourceType[] = [POOLS, LEASES, INSTANCES, BUNDLES, VERSION_STREAMS];

/** The instance controllers' test waits, as --timings (test/support/test-timings.ts). */
const TIMINGS = Object.entries(TEST_INSTANCE_TIMINGS)
  .map(([key, ms]) => `instance.${key.replace(/Ms$/, '')}=${ms}ms`)
  .join(',');

const holder = (l: LeaseObject | undefined): string => l?.spec?.holderIdentity ?? '';
const b64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString();
/** The world's labels as a selector: its cluster-scoped objects (bundle, stream). */
const scopeSelector = (): string =>
  Object.entries(world.scopeLabels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
const uidsOf = (objects: KubeObject[]): string[] =>
  objects
    .map((o) => `${o.kind}/${o.metadata!.namespace}/${o.metadata!.name} ${o.metadata!.uid}`)
    .sort();

function crcPool(): ClusterPool {
  return {
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name: 'crc', namespace: ns.name },
    spec: {
      type: 'crc',
      maxSize: 1,
      minSize: 0,
      warmSpares: 1,
      template: manualCrcTemplate('crc-bundle-ssh-key'),
    },
  };
}

function versionStream(): VersionStream {
  return {
    apiVersion: VERSION_STREAMS.apiVersion,
    kind: VERSION_STREAMS.kind,
    metadata: { name: `upgrade-${ns.name}`, labels: { ...world.scopeLabels } },
    spec: { minor: '4.16', channelGroup: 'stable', arch: 'amd64' },
  };
}

/** A step held until the test lets it go; `reached` once its Job's pod runs it. */
function hold(): { reached: Promise<void>; release: () => void; wait: () => Promise<void> } {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { reached, release, wait: () => (arrive(), released) };
}

/** Every object of the kinds in the namespaces, for a comparison of UIDs. */
async function listAll(types: ResourceType[], namespaces: string[]): Promise<KubeObject[]> {
  const all: KubeObject[] = [];
  for (const type of types)
    for (const namespace of type.namespaced === false ? [undefined] : namespaces)
      all.push(
        ...(await ns.api.list<KubeObject>(type, { namespace })).items.map((o) => ({
          ...o,
          kind: type.kind,
        })),
      );
  return all;
}

/** The operator's reconciles so far (success, requeue, conflict, error), by controller. */
async function reconciles(
  operator: OperatorProcess,
): Promise<Record<string, Record<string, number>>> {
  const text = await (await fetch(`http://127.0.0.1:${operator.metricsPort}/metrics`)).text();
  const counts: Record<string, Record<string, number>> = {};
  for (const match of text.matchAll(
    /^guestcluster_reconcile_total\{controller="([^"]+)",result="([^"]+)"\} (\d+)$/gm,
  ))
    (counts[match[1]!] ??= {})[match[2]!] = Number(match[3]);
  return counts;
}

/**
 * Resolves once the operator has reconciled each controller's objects at least `expected` times
 * (its first pass over what the release left); metrics have no watch, so it asks every 250 ms.
 */
async function reconciledOnce(
  operator: OperatorProcess,
  expected: Record<string, number>,
  timeoutMs = 120_000,
): Promise<Record<string, Record<string, number>>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await reconciles(operator);
    const behind = Object.entries(expected).filter(
      ([controller, n]) =>
        Object.values(counts[controller] ?? {}).reduce((sum, c) => sum + c, 0) < n,
    );
    if (behind.length === 0) return counts;
    if (Date.now() > deadline)
      throw new Error(
        `The operator has not reconciled ${behind.map(([c, n]) => `${n} ${c}`).join(', ')} within ${timeoutMs} ms: ${JSON.stringify(counts)}`,
      );
    await delay(250);
  }
}

/** Runs a write again on a conflict (the operator wrote the object in between), a few times. */
async function retryingConflicts<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isConflict(error) || attempt === 5) throw error;
    }
  }
}

describe(`an upgrade from release ${RELEASE} to this checkout`, () => {
  let release: ReleaseBuild;
  let dir: string;
  const accounts: Record<string, OperatorAccount> = {};
  const processes: Record<string, OperatorProcess> = {};
  const build = hold();
  const start = async (name: string, cli?: string): Promise<OperatorProcess> => {
    const started = await startOperatorProcess({
      identity: name,
      namespace: ns.name,
      scopeLabels: world.scopeLabels,
      ...(cli ? { cli } : {}),
      // As operator/deploy runs it: elected, with the defaults of the lease's timings.
      args: ['--leader-elect', `--timings=${TIMINGS}`],
      env: {
        KUBECONFIG: accounts[name]!.kubeconfigPath,
        CRC_AGENT_IMAGE: TEST_AGENT_IMAGE,
        // Route hosts have no DNS here: the router is also an HTTPS proxy.
        HTTPS_PROXY: world.platform.router.proxyUrl,
        NO_PROXY: '127.0.0.1,localhost',
      },
    });
    processes[name] = started;
    return started;
  };
  const electionLease = (until: (l: LeaseObject | undefined) => boolean, what: string) =>
    waitFor<LeaseObject>(ns.kubeConfig, {
      type: ELECTION_LEASES,
      namespace: ns.name,
      name: LEADER_ELECTION_ID,
      until,
      description: `the leader-election lease ${what}`,
      timeoutMs: 60_000,
    }).then((l) => l!);

  beforeAll(async () => {
    const { commit } = readReleaseRecord(ROOT, RELEASE);
    release = await releaseBuild(ROOT, commit, (line) =>
      process.stderr.write(`[release ${RELEASE}] ${line}\n`),
    );
    dir = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-upgrade-'));
    const admin = adminAccessFromFile(world.controlPlane.kubeconfigPath);
    for (const name of [PREVIOUS, CURRENT])
      accounts[name] = await operatorAccount(ns.api, admin, dir, name);
    await createCrcPrerequisites(world.platform, ns.api, ns.name);
    await createBuildInputs(ns.api, ns.name);
  }, 20 * 60_000);
  afterAll(async () => {
    build.release();
    for (const h of histories) h.stop();
    for (const p of Object.values(processes))
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(Object.values(processes).map((p) => p.exited));
    await rm(dir, { recursive: true, force: true });
  });

  const state: {
    leases: Record<string, ClusterLease>;
    kubeconfigs: Record<string, string>;
    attempt: string;
    guests: string[];
    hcpNamespace: string;
  } = { leases: {}, kubeconfigs: {}, attempt: '', guests: [], hcpNamespace: '' };

  it(`the release's operator leads, binds a lease of a crc and of an hcp pool, and builds a bundle`, async () => {
    await start(PREVIOUS, release.cli);
    await electionLease((l) => holder(l).startsWith(`${PREVIOUS}_`), `held by ${PREVIOUS}`);
    await ns.api.create(POOLS, crcPool());
    await ns.api.create(POOLS, hcpPool(ns.name, 'hcp', { maxSize: 1, warmSpares: 1 }));
    await ns.api.create(VERSION_STREAMS, versionStream());
    playBuild(world.platform, ns.api, ns.name, BUNDLE, { 'install-wait': build.wait });
    await ns.api.create(BUNDLES, buildBundle(BUNDLE, {}, world.scopeLabels));
    for (const pool of ['crc', 'hcp']) await ns.api.create(LEASES, lease(ns.name, pool, pool));
    for (const pool of ['crc', 'hcp']) {
      const bound = await waitForLease(
        ns,
        pool,
        (l) => ['Bound', 'Failed', 'Lost'].includes(l?.status?.phase ?? ''),
        'bound by the release',
        BIND_TIMEOUT_MS,
      );
      expect({ pool, phase: bound.status?.phase }).toEqual({ pool, phase: 'Bound' });
      state.leases[pool] = bound;
      const secret = await ns.api.get<Secret>(
        SECRETS,
        bound.status!.kubeconfigSecretRef!.name!,
        ns.name,
      );
      state.kubeconfigs[pool] = b64(secret.data?.kubeconfig);
      expect(state.kubeconfigs[pool]).toContain('apiVersion: v1');
    }
    const hcp = await waitForInstance(
      ns,
      state.leases.hcp!.status!.instanceRef!.name!,
      (i) => !!i?.status?.hyperShift?.hostedClusterName,
      'placed',
    );
    const { hostedClusterNamespace, hostedClusterName } = hcp.status!.hyperShift!;
    state.hcpNamespace = `${hostedClusterNamespace}-${hostedClusterName}`;
    // The build is in the middle of its longest step, with its VM and disks made.
    await build.reached;
    const building = await ns.api.get<CRCBundle>(BUNDLES, BUNDLE);
    expect(building.status?.build?.stage).toBeTruthy();
    expect(['Ready', 'Failed']).not.toContain(building.status?.phase);
    state.attempt = building.status!.build!.attempt!;
  });

  let histories: ObjectHistory<KubeObject>[] = [];
  /** How many versions each history had when the handover was checked. */
  let marks: number[] = [];

  it(`the current CRDs and a standby of the current operator; the release's stops and the current one takes over`, async () => {
    const namespaces = [ns.name, state.hcpNamespace];
    state.guests = uidsOf(await listAll(GUEST_KINDS, namespaces));
    histories = [];
    for (const type of GUEST_KINDS)
      for (const namespace of namespaces)
        histories.push(await ObjectHistory.start<KubeObject>(ns.api, type, namespace));

    // docs/install.md#upgrade: the CRDs and the operator of the new release, applied together.
    const kubectl = world.controlPlane.binaries.kubectl;
    const kubeconfig = `--kubeconfig=${world.controlPlane.kubeconfigPath}`;
    await runCommand(kubectl, [
      kubeconfig,
      'apply',
      '--server-side',
      '--force-conflicts',
      '-k',
      path.join(ROOT, 'crds'),
    ]);
    await runCommand(kubectl, [
      kubeconfig,
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      'crd',
      '--all',
    ]);

    const current = await start(CURRENT);
    await current.logged('Waiting to acquire the leader-election lease', 60_000);
    const standby = await fetch(`http://127.0.0.1:${current.probePort}/readyz`);
    expect(await standby.text()).toBe('ok (standby)\n');
    // One renewal of the release's while the standby runs: the standby saw a held lease, and waited.
    const seen = await ns.api.get<LeaseObject>(ELECTION_LEASES, LEADER_ELECTION_ID, ns.name);
    const before = await electionLease(
      (l) => holder(l).startsWith(`${PREVIOUS}_`) && l!.spec!.renewTime !== seen.spec!.renewTime,
      `renewed by ${PREVIOUS} while ${CURRENT} waits`,
    );

    const previous = processes[PREVIOUS]!;
    previous.child.kill('SIGTERM');
    const exit = await previous.exited;
    expect({ ...exit, log: exit.code === 0 ? '' : previous.output() }).toEqual({
      code: 0,
      signal: null,
      log: '',
    });
    const acquired = await electionLease(
      (l) => holder(l).startsWith(`${CURRENT}_`),
      `taken over by ${CURRENT}`,
    );
    expect(acquired.spec!.leaseTransitions).toBe((before.spec!.leaseTransitions ?? 0) + 1);
    await current.logged('Caches synced; starting controllers', 60_000);
    // Its first pass over everything the release left: 2 pools, 2 leases, 2 instances, 1 bundle, 1 stream.
    const counts = await reconciledOnce(current, {
      clusterpool: 2,
      clusterlease: 2,
      clusterinstance: 2,
      crcbundle: 1,
      versionstream: 1,
    });
    const errors = Object.fromEntries(
      Object.entries(counts)
        .filter(([, results]) => (results.error ?? 0) > 0)
        .map(([controller, results]) => [controller, results.error]),
    );
    expect({ errors, log: Object.keys(errors).length ? current.output() : '' }).toEqual({
      errors: {},
      log: '',
    });
  });

  it(`no request of the current operator changed anything before the release's gave the lease up`, async () => {
    const [previous, current] = [accounts[PREVIOUS]!.username, accounts[CURRENT]!.username];
    const writes = await auditedWrites(auditLogPath(world.controlPlane.stateDir), [
      previous,
      current,
    ]);
    const election = (w: AuditedWrite): boolean =>
      w.resource === 'leases.coordination.k8s.io' && w.name === LEADER_ELECTION_ID;
    const byPrevious = writes.filter((w) => w.username === previous);
    const byCurrent = writes.filter((w) => w.username === current);
    // The release's last write is the release of the lease (holder emptied), as it stops.
    const released = byPrevious.at(-1)!;
    expect(released).toMatchObject({ verb: 'update', resource: 'leases.coordination.k8s.io' });
    expect(election(released)).toBe(true);
    // Both made writes, so that the order below says something.
    expect(byPrevious.filter((w) => !election(w)).length).toBeGreaterThan(0);
    expect(byCurrent.filter((w) => !election(w)).length).toBeGreaterThan(0);
    const early = byCurrent.filter((w) => w.received <= released.received);
    expect(early).toEqual([]);
    // The first write of the current one takes the lease over; everything else comes after.
    expect(election(byCurrent[0]!)).toBe(true);
    // Its first pass wrote statuses, Events and its admission policies, but rewrote no guest,
    // no kubeconfig Secret and no spec of ours.
    const rewritten = byCurrent.filter((w) => KEPT_RESOURCES.includes(w.resource));
    expect(rewritten).toEqual([]);
  });

  it('every stored object reads, and a write of it as it is, of its status too, is accepted', async () => {
    const refused: string[] = [];
    for (const type of OUR_KINDS) {
      const { items } = await ns.api.list<KubeObject & { spec?: unknown; status?: unknown }>(
        type,
        type.namespaced ? { namespace: ns.name } : { labelSelector: scopeSelector() },
      );
      expect({ kind: type.kind, stored: items.length > 0 }).toEqual({
        kind: type.kind,
        stored: true,
      });
      for (const stored of items) {
        const name = stored.metadata!.name!;
        const namespace = stored.metadata!.namespace;
        const attempt = async (what: string, write: () => Promise<unknown>): Promise<void> => {
          await write().catch((error: unknown) =>
            refused.push(`${type.kind}/${name} ${what}: ${String(error)}`),
          );
        };
        const read = () => ns.api.get<KubeObject & { status?: unknown }>(type, name, namespace);
        await attempt('update', () =>
          retryingConflicts(async () => ns.api.update(type, await read())),
        );
        await attempt('status update', () =>
          retryingConflicts(async () => ns.api.updateStatus(type, await read())),
        );
        // A create is validated as a whole (an update only where it changes, ratcheting).
        await attempt('dry-run create of a copy', () =>
          ns.api.create(
            type,
            {
              apiVersion: stored.apiVersion,
              kind: stored.kind,
              metadata: {
                name: `${name}-copy`,
                ...(namespace ? { namespace } : {}),
                labels: stored.metadata!.labels ?? {},
              },
              spec: stored.spec,
            } as KubeObject,
            { dryRun: true },
          ),
        );
      }
    }
    expect(refused).toEqual([]);
  });

  it('every lease keeps its instance and kubeconfig, and no guest was made or deleted', async () => {
    for (const pool of ['crc', 'hcp']) {
      const now = await ns.api.get<ClusterLease>(LEASES, pool, ns.name);
      expect({ pool, phase: now.status?.phase, instance: now.status?.instanceRef }).toEqual({
        pool,
        phase: 'Bound',
        instance: state.leases[pool]!.status!.instanceRef,
      });
      const instance = await ns.api.get<ClusterInstance>(
        INSTANCES,
        now.status!.instanceRef!.name!,
        ns.name,
      );
      expect(instance.metadata!.uid).toBe(now.status!.instanceRef!.uid);
      const secret = await ns.api.get<Secret>(
        SECRETS,
        now.status!.kubeconfigSecretRef!.name!,
        ns.name,
      );
      expect(b64(secret.data?.kubeconfig)).toBe(state.kubeconfigs[pool]);
    }
    expect(uidsOf(await listAll(GUEST_KINDS, [ns.name, state.hcpNamespace]))).toEqual(state.guests);
    expect([...new Set(state.guests.map((g) => g.split('/')[0]))].sort()).toEqual(
      GUEST_KINDS.map((t) => t.kind).sort(),
    );
    marks = histories.map((h) => h.versions.length);
    const churn = histories.flatMap((h, i) =>
      h.versions
        .slice(0, marks[i])
        .filter((v) => v.type !== 'MODIFIED')
        .map((v) => `${v.type} ${v.object.kind}/${v.object.metadata!.name}`),
    );
    expect(churn).toEqual([]);
  });

  it('the build goes on with the current operator, in the same attempt, to a Ready bundle', async () => {
    build.release();
    const done = await waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name: BUNDLE,
      until: (b) => ['Ready', 'Failed'].includes(b?.status?.phase ?? ''),
      description: 'the build done',
      timeoutMs: 5 * 60_000,
    });
    expect({ phase: done!.status!.phase, attempt: done!.status!.build!.attempt }).toEqual({
      phase: 'Ready',
      attempt: state.attempt,
    });
  });

  it('a lease is released and a new one binds, on the current operator', async () => {
    const old = state.leases.crc!.status!.instanceRef!;
    await ns.api.delete(LEASES, 'crc', ns.name);
    await waitForInstance(ns, old.name!, (i) => i?.metadata?.uid !== old.uid, 'torn down');
    await ns.api.create(LEASES, lease(ns.name, 'crc-again', 'crc'));
    const bound = await waitForLease(
      ns,
      'crc-again',
      (l) => ['Bound', 'Failed', 'Lost'].includes(l?.status?.phase ?? ''),
      'bound by the current operator',
      BIND_TIMEOUT_MS,
    );
    expect(bound.status?.phase).toBe('Bound');
    expect(bound.status!.instanceRef!.uid).not.toBe(old.uid);
    // The watches that saw no guest come or go over the handover see these.
    const seen = histories.flatMap((h, i) =>
      h.versions
        .slice(marks[i])
        .filter((v) => v.type === 'DELETED')
        .map((v) => v.object.metadata!.uid),
    );
    expect(seen).toContain(old.uid);
    for (const h of histories) h.stop();
  });
});
