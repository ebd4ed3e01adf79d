import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
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
import type { KubeObject } from '../../operator/kube/objects.js';
import { LABEL_POOL } from '../../operator/api/labels.js';
import { isNotFound } from '../../client/kube/api-error.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import { eventFor } from '../support/events.js';
import { useWorld } from '../support/world.js';
import {
  hcpPool,
  lease,
  releaseLeasesAndPools,
  settleInstance,
} from '../support/fixtures/pool-fixtures.js';

// The pool and lease controllers only (the world's default without a platform): the test writes
// the streams' answers itself, as the VersionStream controller would, and plays the instance
// controller's part (settleInstance).
const world = useWorld({ namespace: 'vfollow', enabled: true, operator: true });
const { ns } = world;

type Conditioned = {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
};
const condition = (object: Conditioned | undefined, type: string) =>
  object?.status?.conditions?.find((c) => c.type === type);

/** A digest-pinned release pullspec, as the update service publishes it. */
const releaseImage = (version: string): string =>
  `quay.io/openshift-release-dev/ocp-release@sha256:${createHash('sha256').update(version).digest('hex')}`;

const streams: string[] = [];
const bundles: string[] = [];

async function createStream(name: string, minor = '4.19'): Promise<void> {
  streams.push(name);
  await ns.api.create(VERSION_STREAMS, {
    apiVersion: VERSION_STREAMS.apiVersion,
    kind: VERSION_STREAMS.kind,
    metadata: { name },
    spec: { minor },
  });
}

/** Writes the stream's answer through its status subresource, as its controller does. */
async function resolveStream(name: string, status: VersionStream['status']): Promise<void> {
  const stream = await ns.api.get<VersionStream>(VERSION_STREAMS, name);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await ns.api.updateStatus(VERSION_STREAMS, {
    ...stream,
    status: {
      ...status,
      lastResolved: now,
      observedGeneration: stream.metadata?.generation,
      conditions: [
        {
          type: 'Resolved',
          status: 'True',
          reason: 'Resolved',
          message: `stable-4.19 resolved to ${status?.resolvedVersion}`,
          lastTransitionTime: now,
        },
      ],
    },
  });
}

function streamPool(
  name: string,
  stream: string,
  sizes: Partial<ClusterPool['spec']>,
): ClusterPool {
  const pool = hcpPool(ns.name, name, sizes);
  pool.spec.template = { versionStreamRef: { name: stream }, memory: '8Gi', cores: 2 };
  return pool;
}

const pool = (name: string, until: (p: ClusterPool | undefined) => boolean, description: string) =>
  waitFor<ClusterPool>(ns.kubeConfig, {
    type: POOLS,
    namespace: ns.name,
    name,
    until,
    description,
  });

const instancesOf = (
  name: string,
  until: (items: ClusterInstance[]) => boolean,
  description: string,
) =>
  waitForList<ClusterInstance>(ns.kubeConfig, {
    type: INSTANCES,
    namespace: ns.name,
    labelSelector: `${LABEL_POOL}=${name}`,
    until,
    description,
  });

const leaseState = (
  name: string,
  until: (l: ClusterLease | undefined) => boolean,
  description: string,
) =>
  waitFor<ClusterLease>(ns.kubeConfig, {
    type: LEASES,
    namespace: ns.name,
    name,
    until,
    description,
  });

/** guestcluster_pool_stale_instances of a pool, as the world's operator reports it now. */
async function staleGauge(name: string): Promise<number | undefined> {
  const text = await world.operator.metrics.registry.getSingleMetricAsString(
    'guestcluster_pool_stale_instances',
  );
  const labels = `namespace="${ns.name}",pool="${name}"`;
  const line = text.split('\n').find((l) => l.includes(labels));
  return line ? Number(line.split(' ').pop()) : undefined;
}

/**
 * Settles an instance that took the name of a deleted one, once the garbage collector has removed
 * the kubeconfig Secret its predecessor owned.
 */
async function settleSuccessor(instance: ClusterInstance): Promise<void> {
  const name = instance.metadata!.name!;
  await waitFor<KubeObject>(ns.kubeConfig, {
    type: SECRETS,
    namespace: ns.name,
    name: `${name}-kubeconfig`,
    until: (secret) => !secret,
    description: `the predecessor's Secret ${name}-kubeconfig to be collected`,
  });
  await settleInstance(ns.api, ns.name, name);
}

const reason = (l: ClusterLease | undefined): string => condition(l, 'Ready')?.reason ?? '';
const version = (i: ClusterInstance): string => i.spec.template.ocpVersion;
const deleting = (i: ClusterInstance): boolean => !!i.metadata?.deletionTimestamp;

afterAll(async () => {
  await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
  const gone = (error: unknown): void => {
    if (!isNotFound(error)) throw error;
  };
  await Promise.all([
    ...streams.map((name) => ns.api.delete(VERSION_STREAMS, name).catch(gone)),
    ...bundles.map((name) => ns.api.delete(BUNDLES, name).catch(gone)),
  ]);
});

describe('a pool that follows a VersionStream', () => {
  it('waits for its stream, then rolls two unclaimed spares one at a time while the claimed instance stays', async () => {
    const stream = `${ns.name}-419`;
    await ns.api.create(POOLS, streamPool('follow', stream, { warmSpares: 2, maxSize: 4 }));
    const missing = await pool(
      'follow',
      (p) => condition(p, 'VersionStreamResolved')?.reason === 'VersionStreamNotFound',
      'the pool to say its stream is missing',
    );
    expect(condition(missing, 'VersionStreamResolved')?.message).toContain(
      `"${stream}" does not exist`,
    );
    await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterPool', name: 'follow' },
      'VersionStreamNotFound',
    );

    await createStream(stream);
    await pool(
      'follow',
      (p) => condition(p, 'VersionStreamResolved')?.reason === 'VersionStreamNotResolved',
      'the pool to say its stream has no answer yet',
    );
    const none = await ns.api.list(INSTANCES, { namespace: ns.name });
    expect(none.items).toHaveLength(0);

    await resolveStream(stream, {
      resolvedVersion: '4.19.7',
      releaseImage: releaseImage('4.19.7'),
    });
    const first = await instancesOf(
      'follow',
      (items) => items.length === 2,
      'two spares of 4.19.7',
    );
    for (const instance of first) {
      expect(instance.spec.template).toMatchObject({
        ocpVersion: '4.19.7',
        releaseImage: releaseImage('4.19.7'),
      });
      expect(instance.spec.template).not.toHaveProperty('versionStreamRef');
    }
    await Promise.all(first.map((i) => settleInstance(ns.api, ns.name, i.metadata!.name!)));

    // A lease takes the oldest spare; the pool makes a third to keep two spares.
    await ns.api.create(LEASES, lease(ns.name, 'claimer', 'follow'));
    const bound = await leaseState(
      'claimer',
      (l) => l?.status?.phase === 'Bound',
      'the lease to bind',
    );
    const claimed = first.find((i) => i.metadata!.name === bound!.status!.instanceRef!.name)!;
    const three = await instancesOf('follow', (items) => items.length === 3, 'a third instance');
    const third = three.find((i) => !first.some((f) => f.metadata!.uid === i.metadata!.uid))!;
    await settleInstance(ns.api, ns.name, third.metadata!.name!);
    const steady = await pool(
      'follow',
      (p) =>
        p?.status?.availableInstances === 2 &&
        condition(p, 'AllInstancesCurrent')?.status === 'True',
      'two current spares and one leased',
    );
    expect(steady!.status).toMatchObject({ version: '4.19.7', leasedInstances: 1 });
    const spares = [...first.filter((i) => i !== claimed), third];
    const [older, newer] = spares;

    // The stream moves: the older spare goes first, and nothing else while its successor provisions.
    await resolveStream(stream, {
      resolvedVersion: '4.19.8',
      releaseImage: releaseImage('4.19.8'),
    });
    await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterPool', name: 'follow' },
      'VersionChanged',
    );
    const rolling = await instancesOf(
      'follow',
      (items) =>
        !items.some((i) => i.metadata!.uid === older!.metadata!.uid) &&
        items.some((i) => version(i) === '4.19.8'),
      'the older spare replaced by an instance of 4.19.8',
    );
    const successor = rolling.find((i) => version(i) === '4.19.8')!;
    expect(successor.spec.template.releaseImage).toBe(releaseImage('4.19.8'));
    // The pass that saw the successor provisioning has written the pool's status: it deleted nothing.
    const provisioning = await pool(
      'follow',
      (p) => p?.status?.totalInstances === 3 && p.status.availableInstances === 1,
      'the pool to see the successor provisioning',
    );
    expect(condition(provisioning, 'AllInstancesCurrent')).toMatchObject({
      status: 'False',
      reason: 'StaleInstances',
    });
    expect(condition(provisioning, 'AllInstancesCurrent')?.message).toMatch(
      /^1 unclaimed instance/,
    );
    const meanwhile = await ns.api.get<ClusterInstance>(INSTANCES, newer!.metadata!.name!, ns.name);
    expect(meanwhile.metadata!.uid).toBe(newer!.metadata!.uid);
    expect(deleting(meanwhile)).toBe(false);
    expect(await staleGauge('follow')).toBe(1);

    await settleSuccessor(successor);
    const next = await instancesOf(
      'follow',
      (items) =>
        !items.some((i) => i.metadata!.uid === newer!.metadata!.uid) &&
        items.filter((i) => version(i) === '4.19.8').length === 2,
      'the newer spare replaced too',
    );
    const last = next.find(
      (i) => version(i) === '4.19.8' && i.metadata!.uid !== successor.metadata!.uid,
    )!;
    await settleSuccessor(last);
    const current = await pool(
      'follow',
      (p) =>
        p?.status?.availableInstances === 2 &&
        condition(p, 'AllInstancesCurrent')?.status === 'True',
      'every spare current',
    );
    expect(current!.status).toMatchObject({
      version: '4.19.8',
      leasedInstances: 1,
      totalInstances: 3,
    });
    expect(await staleGauge('follow')).toBe(0);

    // The claimed instance of 4.19.7 is untouched, and its lease still bound to it.
    const kept = await ns.api.get<ClusterInstance>(INSTANCES, claimed.metadata!.name!, ns.name);
    expect(kept.metadata!.uid).toBe(claimed.metadata!.uid);
    expect(deleting(kept)).toBe(false);
    expect(version(kept)).toBe('4.19.7');
    const still = await ns.api.get<ClusterLease>(LEASES, 'claimer', ns.name);
    expect(still.status).toMatchObject({
      phase: 'Bound',
      instanceRef: { uid: claimed.metadata!.uid },
    });
  });
});

describe('leases that ask for a version', () => {
  it('bind first come first served among the leases that can take an instance, and wait with VersionUnavailable for a version the pool does not offer', async () => {
    const template = (v: string): ClusterPool['spec']['template'] => ({
      releaseImage: `quay.io/openshift-release-dev/ocp-release:${v}-x86_64`,
      ocpVersion: v,
      memory: '8Gi',
      cores: 2,
    });
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'mixed', { maxSize: 3, template: template('4.19.7') }),
    );
    // Names in creation order: leases created within one second are served by name.
    const wants = { 'l1-418': '4.18', 'l2-419': '4.19', 'l3-4197': '4.19.7', 'l4-420': '4.20' };
    for (const [name, ocpVersion] of Object.entries(wants))
      await ns.api.create(LEASES, {
        ...lease(ns.name, name, 'mixed'),
        spec: { poolRef: { name: 'mixed' }, ocpVersion },
      });

    for (const name of ['l1-418', 'l4-420']) {
      const unavailable = await leaseState(
        name,
        (l) => reason(l) === 'VersionUnavailable',
        `${name} VersionUnavailable`,
      );
      expect(unavailable!.status!.phase).toBe('Pending');
      expect(condition(unavailable, 'Ready')?.message).toContain(
        'offers OpenShift 4.19.7 (spec.template.ocpVersion)',
      );
    }
    await eventFor(
      ns.kubeConfig,
      ns.name,
      { kind: 'ClusterLease', name: 'l4-420' },
      'VersionUnavailable',
    );

    // Only the two leases the pool can serve are demand.
    const made = await instancesOf(
      'mixed',
      (items) => items.length === 2,
      'an instance for each servable lease',
    );
    const [first, second] = made.map((i) => i.metadata!.name!).sort();
    await settleInstance(ns.api, ns.name, first!);
    const l2 = await leaseState(
      'l2-419',
      (l) => l?.status?.phase === 'Bound',
      'l2 to bind past l1',
    );
    expect(l2!.status).toMatchObject({ instanceRef: { name: first }, ocpVersion: '4.19.7' });
    const l3 = await leaseState(
      'l3-4197',
      (l) => l?.status?.queuePosition === 1,
      'l3 first in the queue for 4.19',
    );
    expect(reason(l3)).toBe('WaitingForCapacity');
    await settleInstance(ns.api, ns.name, second!);
    await leaseState('l3-4197', (l) => l?.status?.phase === 'Bound', 'l3 to bind');
    const served = await pool('mixed', (p) => p?.status?.leasedInstances === 2, 'two leased');
    expect(served!.status!.totalInstances).toBe(2);

    // The pool moves to 4.18: the lease asking for it is looked at again and served.
    const current = await ns.api.get<ClusterPool>(POOLS, 'mixed', ns.name);
    await ns.api.update(POOLS, {
      ...current,
      spec: { ...current.spec, template: template('4.18.5') },
    });
    await leaseState(
      'l1-418',
      (l) => reason(l) === 'WaitingForCapacity',
      'l1 to wait for capacity',
    );
    const third = await instancesOf(
      'mixed',
      (items) => items.some((i) => version(i) === '4.18.5'),
      'an instance of 4.18.5',
    );
    await settleInstance(
      ns.api,
      ns.name,
      third.find((i) => version(i) === '4.18.5')!.metadata!.name!,
    );
    const l1 = await leaseState('l1-418', (l) => l?.status?.phase === 'Bound', 'l1 to bind');
    expect(l1!.status!.ocpVersion).toBe('4.18.5');
    const l4 = await leaseState(
      'l4-420',
      (l) => condition(l, 'Ready')?.message.includes('4.18.5') ?? false,
      'l4 to name the new offer',
    );
    expect(reason(l4)).toBe('VersionUnavailable');
  });
});

describe('a crc pool that follows a VersionStream', () => {
  it('waits for a CRC bundle version, then creates its CRCBundle and instances of it', async () => {
    const stream = `${ns.name}-crc`;
    const bundle = 'crc-4.19.93-amd64';
    bundles.push(bundle);
    await createStream(stream);
    await resolveStream(stream, {
      resolvedVersion: '4.19.94',
      releaseImage: releaseImage('4.19.94'),
    });
    const crc = streamPool('crc-follow', stream, { type: 'crc', minSize: 1, maxSize: 1 });
    await ns.api.create(POOLS, crc);
    const waiting = await pool(
      'crc-follow',
      (p) => condition(p, 'VersionStreamResolved')?.reason === 'VersionStreamNotResolved',
      'the crc pool to wait for a bundle version',
    );
    expect(condition(waiting, 'VersionStreamResolved')?.message).toContain(
      'has not resolved a CRC bundle version',
    );
    await resolveStream(stream, {
      resolvedVersion: '4.19.94',
      releaseImage: releaseImage('4.19.94'),
      crcBundleVersion: '4.19.93',
    });
    const [instance] = await instancesOf(
      'crc-follow',
      (items) => items.length === 1,
      'a crc instance',
    );
    expect(instance!.spec.template).toMatchObject({ crcVersion: '4.19.93', ocpVersion: '4.19.93' });
    const created = await ns.api.get<CRCBundle>(BUNDLES, bundle);
    expect(created.spec).toMatchObject({ version: '4.19.93', arch: 'amd64' });
    const following = await pool(
      'crc-follow',
      (p) => p?.status?.version === '4.19.93',
      'the pool version',
    );
    expect(condition(following, 'VersionStreamResolved')).toMatchObject({
      status: 'True',
      reason: 'VersionStreamResolved',
    });
  });
});

describe('the schema', () => {
  const refusal = (object: object): Promise<string> =>
    ns.api.create(POOLS, object as ClusterPool).then(
      () => 'accepted',
      (error: unknown) => (error as Error).message,
    );
  const withTemplate = (template: Record<string, unknown>, type: 'hcp' | 'crc' = 'hcp') => {
    const refused = hcpPool(ns.name, 'refused', { type });
    return {
      ...refused,
      spec: { ...refused.spec, template: template as ClusterPool['spec']['template'] },
    };
  };
  const base = { memory: '8Gi', cores: 2 };
  const ref = { versionStreamRef: { name: 'stable-419' } };

  it.each([
    ['releaseImage', { ...base, ...ref, releaseImage: 'quay.io/x:1' }, 'hcp'],
    ['crcVersion', { ...base, ...ref, crcVersion: '4.19.7' }, 'crc'],
    ['crcBundleRef', { ...base, ...ref, crcBundleRef: { name: 'b' } }, 'crc'],
  ] as const)('refuses versionStreamRef with %s', async (_field, template, type) => {
    expect(await refusal(withTemplate(template, type))).toContain(
      'spec.template.versionStreamRef is mutually exclusive with spec.template.releaseImage, spec.template.crcVersion and spec.template.crcBundleRef',
    );
  });

  it('refuses ocpVersion with a stream, and requires it or a stream, and hcp a release or a stream', async () => {
    expect(await refusal(withTemplate({ ...base, ...ref, ocpVersion: '4.19.7' }))).toContain(
      'spec.template.ocpVersion must not be set with spec.template.versionStreamRef',
    );
    expect(await refusal(withTemplate({ ...base, releaseImage: 'quay.io/x:1' }))).toContain(
      'spec.template.ocpVersion is required unless spec.template.versionStreamRef names a VersionStream',
    );
    expect(await refusal(withTemplate({ ...base, ocpVersion: '4.19.7' }))).toContain(
      'spec.template.releaseImage (an OpenShift release image pullspec) or spec.template.versionStreamRef is required',
    );
  });

  it.each(['4', 'latest', '4.19.x', '4.19.7.1'])(
    'refuses a lease asking for version "%s"',
    async (ocpVersion) => {
      const error = await ns.api
        .create(LEASES, {
          ...lease(ns.name, 'bad-version', 'mixed'),
          spec: { poolRef: { name: 'mixed' }, ocpVersion },
        })
        .then(
          () => 'accepted',
          (e: unknown) => (e as Error).message,
        );
      expect(error).toContain(
        'spec.ocpVersion must be an OpenShift minor such as 4.19 (any 4.19.z) or an exact version such as 4.19.7',
      );
    },
  );
});
