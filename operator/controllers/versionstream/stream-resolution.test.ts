import { describe, expect, it } from '@jest/globals';
import type { MirrorAnswer } from './crc-mirror.js';
import type { ResolutionInput } from './stream-resolution.js';
import { resolveStream } from './stream-resolution.js';
import type { UpdateGraph } from './update-graph.js';
import type { GraphAnswer } from './update-service.js';

const image = (n: number): string =>
  `quay.io/openshift-release-dev/ocp-release@sha256:${n.toString(16).padStart(64, '0')}`;

/** 4.19.5 → 4.19.6 → 4.19.7 unconditionally, 4.19.8 only behind a risk. */
const GRAPH: UpdateGraph = {
  nodes: ['4.19.5', '4.19.6', '4.19.7', '4.19.8'].map((version, i) => ({
    version,
    payload: image(i + 1),
    metadata: {},
  })),
  edges: [
    [0, 1],
    [1, 2],
  ],
  conditionalEdges: [{ edges: [{ from: '4.19.7', to: '4.19.8' }], risks: [{ name: 'SomeRisk' }] }],
};
const graph: GraphAnswer = { kind: 'graph', graph: GRAPH };
const found = (version: string): MirrorAnswer => ({ kind: 'found', version });
const none: MirrorAnswer = { kind: 'none', message: 'no bundle of 4.19' };

const input = (overrides: Partial<ResolutionInput> = {}): ResolutionInput => ({
  spec: { minor: '4.19', channelGroup: 'stable', arch: 'amd64' },
  previous: {},
  specChanged: true,
  graph,
  mirror: found('4.19.6'),
  ...overrides,
});

describe('resolving a stream', () => {
  it('takes the newest release of the minor that is not behind a conditional edge', () => {
    const resolution = resolveStream(input());
    expect(resolution.answer).toEqual({
      resolvedVersion: '4.19.7',
      releaseImage: image(3),
      crcBundleVersion: '4.19.6',
    });
    expect(resolution.condition).toEqual({
      status: 'True',
      reason: 'Resolved',
      message:
        '4.19.7 is the newest release of 4.19 in channel stable-4.19 (amd64); passed over 4.19.8, offered only as a conditional update (SomeRisk)',
    });
    expect(resolution.errors).toEqual([]);
  });

  it('moves forward only: a newer previous answer stays', () => {
    const resolution = resolveStream(
      input({
        previous: { resolvedVersion: '4.19.8', releaseImage: image(4), crcBundleVersion: '4.19.7' },
        specChanged: false,
      }),
    );
    expect(resolution.answer).toEqual({
      resolvedVersion: '4.19.8',
      releaseImage: image(4),
      crcBundleVersion: '4.19.7',
    });
    expect(resolution.condition.message).toContain(
      'staying on 4.19.8: the stream moves forward only',
    );
  });

  it('goes back to an older version when pinned, also for the CRC bundle', () => {
    const resolution = resolveStream(
      input({
        spec: { minor: '4.19', channelGroup: 'stable', arch: 'amd64', pin: '4.19.5' },
        previous: { resolvedVersion: '4.19.7', releaseImage: image(3), crcBundleVersion: '4.19.6' },
        mirror: found('4.19.5'),
      }),
    );
    expect(resolution.answer).toEqual({
      resolvedVersion: '4.19.5',
      releaseImage: image(1),
      crcBundleVersion: '4.19.5',
    });
    expect(resolution.condition.message).toBe('pinned by spec.pin to 4.19.5');
  });

  it('says so when the pin is not in the channel, keeping the last answer', () => {
    const resolution = resolveStream(
      input({
        spec: { minor: '4.19', channelGroup: 'stable', arch: 'amd64', pin: '4.19.2' },
        previous: { resolvedVersion: '4.19.7', releaseImage: image(3) },
        mirror: none,
      }),
    );
    expect(resolution.answer).toEqual({ resolvedVersion: '4.19.7', releaseImage: image(3) });
    expect(resolution.condition).toMatchObject({ status: 'False', reason: 'NoReleaseInChannel' });
    expect(resolution.condition.message).toContain(
      'spec.pin 4.19.2 is not a release of channel stable-4.19 (amd64) in the update service; keeping 4.19.7',
    );
    expect(resolution.errors).toEqual(['NoReleaseInChannel']);
  });

  it('keeps the last good answer when the update service does not answer', () => {
    const previous = {
      resolvedVersion: '4.19.6',
      releaseImage: image(2),
      crcBundleVersion: '4.19.6',
    };
    const resolution = resolveStream(
      input({
        previous,
        specChanged: false,
        graph: { kind: 'failed', message: 'answered 503 Service Unavailable' },
      }),
    );
    expect(resolution.answer).toEqual(previous);
    expect(resolution.reached).toBe(false);
    expect(resolution.condition).toEqual({
      status: 'False',
      reason: 'UpdateServiceUnreachable',
      message:
        'the update service did not answer for channel stable-4.19 (amd64): answered 503 Service Unavailable; keeping 4.19.6',
    });
  });

  it('keeps no answer of a minor the spec has left when the update service does not answer', () => {
    const resolution = resolveStream(
      input({
        spec: { minor: '4.20', channelGroup: 'stable', arch: 'amd64' },
        previous: { resolvedVersion: '4.19.6', releaseImage: image(2) },
        graph: { kind: 'failed', message: 'connection refused' },
        mirror: none,
      }),
    );
    expect(resolution.answer).toEqual({});
    expect(resolution.condition.message).toContain('connection refused; no version resolved yet');
  });

  it('reports an empty channel', () => {
    const resolution = resolveStream(
      input({
        spec: { minor: '4.21', channelGroup: 'fast', arch: 'amd64' },
        previous: { resolvedVersion: '4.19.7', releaseImage: image(3) },
        mirror: none,
      }),
    );
    // The previous answer is of another minor: nothing is kept.
    expect(resolution.answer).toEqual({});
    expect(resolution.condition.reason).toBe('NoReleaseInChannel');
    expect(resolution.condition.message).toContain(
      'channel fast-4.21 (amd64) has no release of 4.21; no version to offer',
    );
  });

  it('takes the graph image of an unchanged version (another arch) and leaves an answer no longer offered after a spec change', () => {
    const refreshed = resolveStream(
      input({ previous: { resolvedVersion: '4.19.7', releaseImage: image(99) } }),
    );
    expect(refreshed.answer.releaseImage).toBe(image(3));
    const changed = resolveStream(
      input({
        previous: { resolvedVersion: '4.19.9', releaseImage: image(99) },
        specChanged: true,
      }),
    );
    expect(changed.answer.resolvedVersion).toBe('4.19.7');
    const unchanged = resolveStream(
      input({
        previous: { resolvedVersion: '4.19.9', releaseImage: image(99) },
        specChanged: false,
      }),
    );
    expect(unchanged.answer).toMatchObject({ resolvedVersion: '4.19.9', releaseImage: image(99) });
  });

  it('keeps the CRC bundle version when the mirror cannot be read, and counts it', () => {
    const resolution = resolveStream(
      input({
        previous: { resolvedVersion: '4.19.7', releaseImage: image(3), crcBundleVersion: '4.19.6' },
        specChanged: false,
        mirror: { kind: 'failed', message: 'connection refused' },
      }),
    );
    expect(resolution.answer.crcBundleVersion).toBe('4.19.6');
    expect(resolution.condition.reason).toBe('Resolved');
    expect(resolution.condition.message).toContain(
      'the CRC mirror could not be read, CRC bundle version kept: connection refused',
    );
    expect(resolution.errors).toEqual(['CRCMirrorUnreachable']);
  });
});
