import { isNotFound } from '../../client/kube/api-error.js';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EVENTS, JOBS, PVCS } from '../../client/api/core-resources.js';
import type { ClusterPool, CRCBundle } from '../../client/api/resources.js';
import { BUNDLES, INSTANCES, POOLS } from '../../client/api/resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { useWorld } from '../support/world.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { buildBundle, createBuildInputs } from '../support/fixtures/bundle-build-player.js';

/**
 * A tenant who can create pools makes the operator create cluster-scoped CRCBundles, each with two
 * large volumes in the operator namespace. The admin bounds that: which CRC versions pools may
 * name (--allowed-crc-versions), how many bundles are downloaded at once
 * (--max-preparing-bundles), and how many are built at once (--max-building-bundles).
 */
const world = useWorld({ namespace: 'admin-bounds', enabled: true });
const { ns } = world;
const tag = randomBytes(3).toString('hex');
const bundleName = (suffix: string): string => `bounds-${tag}-${suffix}`;
const REFUSED_VERSION = '4.15.99';

interface CoreEvent extends KubeObject {
  type?: string;
  reason?: string;
  involvedObject?: { name?: string; kind?: string };
}

let manager: Manager;

beforeAll(async () => {
  manager = await world.startOperator({
    config: {
      // The bundle controller works here: its PVCs and prep Jobs go into this namespace.
      operatorNamespace: ns.name,
      crc: { allowedVersions: ['4.16.0'], maxPreparing: 1, maxBuilding: 1 },
    },
    bundles: true,
  });
});

afterAll(async () => {
  await manager?.stop();
});

/**
 * Deletes the test's bundles, and lets their volumes go: no pod ever used them, and the
 * kube-controller-manager's pvc-protection controller, which would release them, does not run here.
 */
async function removeBundles(suffixes = ['a', 'b']): Promise<void> {
  for (const suffix of suffixes)
    await ns.api.delete(BUNDLES, bundleName(suffix)).catch(() => undefined);
  await releaseClaims();
}

async function releaseClaims(): Promise<void> {
  const claims = await ns.api.list<KubeObject>(PVCS, { namespace: ns.name });
  // A claim may be gone between the list and its patch: its bundle's teardown deleted it.
  for (const claim of claims.items)
    await ns.api
      .patch(
        PVCS,
        { name: claim.metadata!.name!, namespace: ns.name },
        { metadata: { finalizers: null } },
      )
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
}

function crcVersionPool(name: string, crcVersion: string): ClusterPool {
  return {
    apiVersion: POOLS.apiVersion,
    kind: POOLS.kind,
    metadata: { name, namespace: ns.name },
    spec: {
      type: 'crc',
      maxSize: 1,
      minSize: 0,
      warmSpares: 1,
      template: { crcVersion, ocpVersion: '4.16.0', memory: '16Gi', cores: 4 },
    },
  };
}

describe('the admin bounds of CRC bundles', () => {
  it('refuses a pool naming a CRC version the admin does not allow, naming the setting', async () => {
    await ns.api.create(POOLS, crcVersionPool('old', REFUSED_VERSION));
    const pool = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'old',
      until: (p) =>
        p?.status?.conditions?.find((c) => c.type === 'ProvisioningAllowed')?.reason ===
        'CRCVersionNotAllowed',
      description: 'the pool to be refused',
    });
    const message = `crcVersion ${REFUSED_VERSION} is not one the operator's admin allows (--allowed-crc-versions (ALLOWED_CRC_VERSIONS): 4.16.0); use one of those, or ask the admin to add ${REFUSED_VERSION} to that setting`;
    for (const type of ['ProvisioningAllowed', 'CapacityAvailable'])
      expect(pool!.status!.conditions!.find((c) => c.type === type)).toMatchObject({
        status: 'False',
        reason: 'CRCVersionNotAllowed',
        message,
      });
    const [event] = await waitForList<CoreEvent>(ns.kubeConfig, {
      type: EVENTS,
      namespace: ns.name,
      until: (items) => items.some((e) => e.reason === 'CRCVersionNotAllowed'),
      description: 'a CRCVersionNotAllowed Event',
    }).then((items) => items.filter((e) => e.reason === 'CRCVersionNotAllowed'));
    expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ClusterPool' } });
    // Nothing was made for it: no bundle (cluster-scoped), no instance.
    await expect(ns.api.get(BUNDLES, `crc-${REFUSED_VERSION}-amd64`)).rejects.toMatchObject({
      status: 404,
    });
    expect((await ns.api.list(INSTANCES, { namespace: ns.name })).items).toEqual([]);
  });

  it('prepares no more bundles at once than the admin allows; the next starts when one is done', async () => {
    for (const suffix of ['a', 'b'])
      await ns.api.create(BUNDLES, {
        apiVersion: BUNDLES.apiVersion,
        kind: BUNDLES.kind,
        metadata: { name: bundleName(suffix), labels: world.scopeLabels },
        spec: { version: '4.16.0' },
      });
    const phases = (items: CRCBundle[]): (string | undefined)[] =>
      items
        .filter((b) => b.metadata!.name!.startsWith(`bounds-${tag}-`))
        .map((b) => b.status?.phase)
        .sort();
    const settled = await waitForList<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      until: (items) => JSON.stringify(phases(items)) === '["Pending","Preparing"]',
      description: 'one bundle preparing, the other waiting',
    });
    const mine = settled.filter((b) => b.metadata!.name!.startsWith(`bounds-${tag}-`));
    const preparing = mine.find((b) => b.status?.phase === 'Preparing')!;
    const waiting = mine.find((b) => b.status?.phase === 'Pending')!;
    expect(waiting.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'WaitingForPreparation',
      message: `1 CRCBundle(s) are being prepared (${preparing.metadata!.name}), as many as --max-preparing-bundles (MAX_PREPARING_BUNDLES) allows (1); this one starts when one of them is done`,
    });
    await ns.api.delete(BUNDLES, preparing.metadata!.name!);
    await waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name: waiting.metadata!.name!,
      until: (b) => b?.status?.phase === 'Preparing',
      description: 'the waiting bundle to start once the other is gone',
    });
    await removeBundles();
  });

  /** A bundle of the test by its phase and the reason of its Ready condition, once `until` holds. */
  const bundleWhen = (suffix: string, until: (b: CRCBundle | undefined) => boolean, what: string) =>
    waitFor<CRCBundle>(ns.kubeConfig, {
      type: BUNDLES,
      name: bundleName(suffix),
      until,
      description: `${bundleName(suffix)} ${what}`,
      timeoutMs: 30_000,
    }).then((b) => b!);
  const readyReason = (b: CRCBundle | undefined): string | undefined =>
    b?.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
  /** A build holds its slot while its first step's Job waits: no Job runs in this world. */
  const building = async (suffix: string): Promise<void> => {
    await bundleWhen(suffix, (b) => b?.status?.phase === 'Preparing', 'to start building');
    await waitForList<KubeObject>(ns.kubeConfig, {
      type: JOBS,
      namespace: ns.name,
      labelSelector: `opdev.io/crc-bundle=${bundleName(suffix)}`,
      until: (jobs) => jobs.length > 0,
      description: `the first step Job of ${bundleName(suffix)}`,
    });
  };

  it('builds take slots of their own (--max-building-bundles), never a download slot', async () => {
    await createBuildInputs(ns.api, ns.name);
    const suffixes = ['build-1', 'download', 'build-2'];
    try {
      await ns.api.create(BUNDLES, buildBundle(bundleName('build-1'), {}, world.scopeLabels));
      await building('build-1');
      // A download starts while a build runs, with --max-preparing-bundles at 1.
      await ns.api.create(BUNDLES, {
        apiVersion: BUNDLES.apiVersion,
        kind: BUNDLES.kind,
        metadata: { name: bundleName('download'), labels: world.scopeLabels },
        spec: { version: '4.16.0' },
      });
      await bundleWhen('download', (b) => b?.status?.phase === 'Preparing', 'to start downloading');
      // A second build waits for the first, naming the bound.
      await ns.api.create(BUNDLES, buildBundle(bundleName('build-2'), {}, world.scopeLabels));
      const waiting = await bundleWhen(
        'build-2',
        (b) => readyReason(b) === 'WaitingForBuildSlot',
        'to wait for a build slot',
      );
      expect(waiting.status!.phase).toBe('Pending');
      expect(waiting.status!.build?.attempt).toBeUndefined();
      expect(waiting.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({
        status: 'False',
        message: `1 CRCBundle build(s) are running (${bundleName('build-1')}), as many as --max-building-bundles (MAX_BUILDING_BUNDLES) allows (1); this one starts when one of them is done`,
      });
      // No volume was ever used here: let them go when their builds delete them.
      await releaseClaims();
      await ns.api.delete(BUNDLES, bundleName('build-1'));
      await building('build-2');
    } finally {
      await releaseClaims();
      await removeBundles(suffixes);
      for (const suffix of suffixes)
        await bundleWhen(suffix, (b) => b === undefined, 'to be gone').catch(() => undefined);
    }
  });
});
