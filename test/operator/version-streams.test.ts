import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Condition } from '../../operator/api/conditions.js';
import { findCondition } from '../../operator/api/conditions.js';
import { EVENTS } from '../../client/api/core-resources.js';
import type { VersionStream } from '../../client/api/resources.js';
import { VERSION_STREAMS } from '../../client/api/resources.js';
import type { Manager } from '../../operator/runtime/manager.js';
import type { FileServer } from '../../dev/platform/bundles/test-bundle.js';
import { serveFolder, writeChecksumFile } from '../../dev/platform/bundles/test-bundle.js';
import type { StandInRelease } from '../../dev/platform/update-service/update-service-stand-in.js';
import {
  releaseImage,
  UpdateServiceStandIn,
} from '../../dev/platform/update-service/update-service-stand-in.js';
import { waitFor, waitForList } from '../../dev/support/wait-for.js';
import type { CoreEvent } from '../support/events.js';
import { useWorld } from '../support/world.js';
import { TestClock } from '../support/fixtures/test-clock.js';

/**
 * The VersionStream controller against a local update service (the graph API's JSON) and a
 * local CRC mirror (an index page of version folders, each with its sha256sum.txt). Time moves
 * by the test clock: the interval and the backoff are far longer than the file runs.
 */
const world = useWorld({ namespace: 'vstreams' });
const { ns } = world;
const MINUTE = 60_000;
const INTERVAL = 10 * MINUTE;
/** Past the interval and its +10% jitter. */
const NEXT_CHECK = 12 * MINUTE;
const BACKOFF = { baseMs: 30 * MINUTE, maxMs: 120 * MINUTE, jitter: 0 };
const METRIC = 'guestcluster_version_stream_resolution_errors_total';

const releases = (...versions: string[]): StandInRelease[] =>
  versions.map((version) => ({ version }));

describe('version streams', () => {
  const clock = new TestClock();
  let updates: UpdateServiceStandIn;
  let mirrorDir: string;
  let mirror: FileServer;
  let manager: Manager;
  /** Streams are cluster-scoped: this file's carry its namespace's name. */
  const name = (suffix: string): string => `${ns.name}-${suffix}`;

  /** Publishes a CRC bundle folder whose sha256sum.txt lists these bundle files. */
  const publishBundle = async (version: string, files: string[]): Promise<void> => {
    await mkdir(path.join(mirrorDir, version), { recursive: true });
    await writeChecksumFile(
      path.join(mirrorDir, version),
      'sha256sum.txt',
      Object.fromEntries(files.map((file) => [file, 'ab'.repeat(32)])),
    );
  };

  beforeAll(async () => {
    updates = await UpdateServiceStandIn.start();
    mirrorDir = await mkdtemp(path.join(os.tmpdir(), 'crc-mirror-'));
    mirror = await serveFolder(mirrorDir);
    for (const version of ['4.18.9', '4.19.1', '4.19.2'])
      await publishBundle(version, [`crc_libvirt_${version}_amd64.crcbundle`]);
    // The newest 4.19 folder has no amd64 libvirt bundle: it is passed over.
    await publishBundle('4.19.3', ['crc_vfkit_4.19.3_arm64.crcbundle']);
    manager = await world.startOperator({
      clock,
      controllers: ['versionstream'],
      config: {
        crcBundleMirrorUrl: mirror.baseUrl,
        versionStreams: {
          updateServiceUrl: updates.url,
          intervalMs: INTERVAL,
          requestTimeoutMs: 1000,
          backoff: BACKOFF,
        },
      },
    });
  });
  afterAll(async () => {
    const ours = (await ns.api.list<VersionStream>(VERSION_STREAMS)).items.filter((s) =>
      s.metadata?.name?.startsWith(ns.name),
    );
    for (const stream of ours)
      await ns.api
        .delete(VERSION_STREAMS, stream.metadata!.name!, undefined, { uid: stream.metadata!.uid })
        .catch(() => undefined);
    await updates?.stop();
    await mirror?.close();
    if (mirrorDir) await rm(mirrorDir, { recursive: true, force: true });
  });

  const create = (suffix: string, spec: VersionStream['spec']): Promise<unknown> =>
    ns.api.create(VERSION_STREAMS, {
      apiVersion: VERSION_STREAMS.apiVersion,
      kind: VERSION_STREAMS.kind,
      metadata: { name: name(suffix), labels: world.scopeLabels },
      spec,
    });
  const patchSpec = (suffix: string, spec: Partial<VersionStream['spec']>): Promise<unknown> =>
    ns.api.patch(VERSION_STREAMS, { name: name(suffix) }, { spec }, { patchType: 'merge' });
  /** Waits until the stream's status passes `until`, and returns it. */
  const streamUntil = async (
    suffix: string,
    until: (
      status: NonNullable<VersionStream['status']>,
      resolved: Condition | undefined,
    ) => boolean,
    description: string,
  ): Promise<NonNullable<VersionStream['status']>> => {
    const stream = await waitFor<VersionStream>(ns.kubeConfig, {
      type: VERSION_STREAMS,
      name: name(suffix),
      until: (s) => !!s?.status && until(s.status, findCondition(s.status.conditions, 'Resolved')),
      description: `stream ${name(suffix)}: ${description}`,
    });
    return stream!.status!;
  };
  const withReason = (suffix: string, reason: string, message = '') =>
    streamUntil(
      suffix,
      (_, c) => c?.reason === reason && c.message.includes(message),
      `${reason} ${message}`,
    );
  /** The stream's next regular check: its lastResolved moves. */
  const nextCheck = async (suffix: string): Promise<NonNullable<VersionStream['status']>> => {
    const before = (await ns.api.get<VersionStream>(VERSION_STREAMS, name(suffix))).status!;
    clock.advance(NEXT_CHECK);
    return streamUntil(suffix, (s) => s.lastResolved !== before.lastResolved, 'checked again');
  };
  const movedEvent = (suffix: string, message: string): Promise<CoreEvent[]> =>
    waitForList<CoreEvent>(ns.kubeConfig, {
      type: EVENTS,
      namespace: 'default',
      until: (events) =>
        events.some(
          (e) =>
            e.reason === 'VersionStreamMoved' &&
            e.involvedObject.name === name(suffix) &&
            e.message === message,
        ),
      description: `VersionStreamMoved "${message}" on ${name(suffix)}`,
    });
  /** The error counter for a stream and reason, as /metrics shows it. */
  const errorCount = async (suffix: string, reason: string): Promise<number> => {
    const text = await manager.metrics.registry.getSingleMetricAsString(METRIC);
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith(`${METRIC}{`) &&
          l.includes(`stream="${name(suffix)}"`) &&
          l.includes(`reason="${reason}"`),
      );
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  /**
   * The error counter once it shows `count` (it is counted just after the status is written, so
   * it may trail the status a test has seen), or its last value after 20 s.
   */
  const errorsReach = async (suffix: string, reason: string, count: number): Promise<number> => {
    const deadline = Date.now() + 20_000;
    let seen = await errorCount(suffix, reason);
    while (seen !== count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await errorCount(suffix, reason);
    }
    return seen;
  };

  it('resolves the newest release of the minor and its newest CRC bundle, passing over a conditional-only release', async () => {
    updates.offer('stable-4.19', 'amd64', [
      ...releases('4.18.20', '4.19.1', '4.19.2', '4.19.3'),
      { version: '4.19.4', conditionalRisk: 'OCPBUGS-4194' },
    ]);
    await create('newest', { minor: '4.19' });
    const status = await withReason('newest', 'Resolved');
    expect(status).toMatchObject({
      resolvedVersion: '4.19.3',
      releaseImage: releaseImage('4.19.3', 'amd64'),
      crcBundleVersion: '4.19.2',
      observedGeneration: 1,
    });
    expect(findCondition(status.conditions, 'Resolved')).toMatchObject({
      status: 'True',
      message:
        '4.19.3 is the newest release of 4.19 in channel stable-4.19 (amd64); passed over 4.19.4, offered only as a conditional update (OCPBUGS-4194)',
    });
    expect(Date.parse(status.lastResolved!)).toBeGreaterThan(0);
    await movedEvent('newest', 'moved from (none) to 4.19.3; CRC bundle from (none) to 4.19.2');
    expect(updates.requests).toContainEqual({
      channel: 'stable-4.19',
      arch: 'amd64',
      accept: 'application/json',
    });
  });

  it('moves forward at its next check, and never back when a release leaves the channel', async () => {
    updates.offer('stable-4.20', 'amd64', releases('4.20.0', '4.20.1'));
    await create('forward', { minor: '4.20' });
    await streamUntil('forward', (s) => s.resolvedVersion === '4.20.1', 'at 4.20.1');

    updates.offer('stable-4.20', 'amd64', releases('4.20.0', '4.20.1', '4.20.2'));
    expect((await nextCheck('forward')).resolvedVersion).toBe('4.20.2');
    await movedEvent('forward', 'moved from 4.20.1 to 4.20.2');
    // One request per check: the operator's own status writes do not make it ask again.
    expect(updates.requests.filter((r) => r.channel === 'stable-4.20')).toHaveLength(2);

    // 4.20.2 is pulled from the channel: the stream stays on it.
    updates.offer('stable-4.20', 'amd64', releases('4.20.0', '4.20.1'));
    const kept = await nextCheck('forward');
    expect(kept.resolvedVersion).toBe('4.20.2');
    expect(kept.releaseImage).toBe(releaseImage('4.20.2', 'amd64'));
    expect(findCondition(kept.conditions, 'Resolved')?.message).toContain(
      'staying on 4.20.2: the stream moves forward only',
    );
  });

  it('keeps its last good answer when the update service fails or does not answer, and counts it', async () => {
    updates.offer('fast-4.18', 'amd64', releases('4.18.8', '4.18.9'));
    await create('outage', { minor: '4.18', channelGroup: 'fast' });
    await streamUntil('outage', (s) => s.resolvedVersion === '4.18.9', 'at 4.18.9');

    updates.fail('fast-4.18', 'amd64', { status: 503 });
    clock.advance(NEXT_CHECK);
    const failed = await withReason('outage', 'UpdateServiceUnreachable', '503');
    expect(failed).toMatchObject({ resolvedVersion: '4.18.9', crcBundleVersion: '4.18.9' });
    const message = findCondition(failed.conditions, 'Resolved')!.message;
    expect(message).toContain('keeping 4.18.9');
    // The next try comes after the backoff (30 min here), not the interval (10 min).
    const retryAt = Date.parse(/asking again at (\S+)$/.exec(message)![1]!);
    expect(retryAt - clock.now()).toBeGreaterThan(BACKOFF.baseMs - MINUTE);
    expect(retryAt - clock.now()).toBeLessThanOrEqual(BACKOFF.baseMs);
    expect(await errorsReach('outage', 'UpdateServiceUnreachable', 1)).toBe(1);

    // No answer at all: the request times out. The retry comes after the backoff, not the interval.
    updates.fail('fast-4.18', 'amd64', 'hang');
    clock.advance(BACKOFF.baseMs);
    const silent = await withReason('outage', 'UpdateServiceUnreachable', 'no answer within 1s');
    expect(silent.resolvedVersion).toBe('4.18.9');
    expect(await errorsReach('outage', 'UpdateServiceUnreachable', 2)).toBe(2);

    updates.heal('fast-4.18', 'amd64');
    clock.advance(2 * BACKOFF.baseMs);
    expect((await withReason('outage', 'Resolved')).resolvedVersion).toBe('4.18.9');
    expect(await errorCount('outage', 'UpdateServiceUnreachable')).toBe(2);
  });

  it('says NoReleaseInChannel for a channel without releases of the minor', async () => {
    await create('empty', { minor: '4.21', channelGroup: 'candidate' });
    const status = await withReason(
      'empty',
      'NoReleaseInChannel',
      'channel candidate-4.21 (amd64) has no release of 4.21',
    );
    expect(status.resolvedVersion).toBeUndefined();
    expect(await errorsReach('empty', 'NoReleaseInChannel', 1)).toBe(1);
  });

  it('goes back to a pinned version, and says so when the pin is not in the channel', async () => {
    updates.offer('stable-4.19', 'amd64', releases('4.19.1', '4.19.2', '4.19.3'));
    await create('pinned', { minor: '4.19' });
    await streamUntil('pinned', (s) => s.resolvedVersion === '4.19.3', 'at 4.19.3');

    await patchSpec('pinned', { pin: '4.19.1' });
    const pinned = await withReason('pinned', 'Resolved', 'pinned by spec.pin to 4.19.1');
    expect(pinned).toMatchObject({
      resolvedVersion: '4.19.1',
      releaseImage: releaseImage('4.19.1', 'amd64'),
      crcBundleVersion: '4.19.1',
      observedGeneration: 2,
    });
    await movedEvent('pinned', 'moved from 4.19.3 to 4.19.1; CRC bundle from 4.19.2 to 4.19.1');

    await patchSpec('pinned', { pin: '4.19.7' });
    const missing = await withReason(
      'pinned',
      'NoReleaseInChannel',
      'spec.pin 4.19.7 is not a release of channel stable-4.19 (amd64) in the update service; keeping 4.19.1',
    );
    expect(missing.resolvedVersion).toBe('4.19.1');
    // The mirror has no 4.19.7 bundle: a frozen stream offers no other.
    expect(missing.crcBundleVersion).toBeUndefined();
  });

  it('refuses a spec no update service can answer, without asking, and forgets its errors once deleted', async () => {
    await create('eus-odd', { minor: '4.19', channelGroup: 'eus' });
    const status = await withReason('eus-odd', 'InvalidSpec', 'there is no channel eus-4.19');
    expect(findCondition(status.conditions, 'Resolved')?.status).toBe('False');
    expect(updates.requests.map((r) => r.channel)).not.toContain('eus-4.19');
    expect(await errorsReach('eus-odd', 'InvalidSpec', 1)).toBe(1);

    // Deleted, its series go: the counter follows the cache, so it is read until it does.
    const stream = await ns.api.get<VersionStream>(VERSION_STREAMS, name('eus-odd'));
    await ns.api.delete(VERSION_STREAMS, name('eus-odd'), undefined, { uid: stream.metadata!.uid });
    expect(await errorsReach('eus-odd', 'InvalidSpec', 0)).toBe(0);
  });
});
