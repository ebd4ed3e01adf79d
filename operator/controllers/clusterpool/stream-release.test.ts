import { describe, expect, it } from '@jest/globals';
import type { ClusterPool, VersionStream } from '../../../client/api/resources.js';
import type { Stored } from '../../kube/objects.js';
import { followingCondition, streamAnswer } from './stream-release.js';

const pool = (type: 'crc' | 'hcp'): Stored<ClusterPool> => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterPool',
  metadata: { name: 'p', namespace: 'ci', uid: 'u', resourceVersion: '1', generation: 3 },
  spec: {
    type,
    maxSize: 2,
    template: { versionStreamRef: { name: 's' }, memory: '8Gi', cores: 2 },
  },
});

const stream = (status: VersionStream['status']): VersionStream => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'VersionStream',
  metadata: { name: 's' },
  spec: { minor: '4.19' },
  status,
});

const image = 'quay.io/openshift-release-dev/ocp-release@sha256:abc';

describe('what a pool gets from the stream it follows', () => {
  it('gives hcp the release image and resolved version, crc the bundle version as both', () => {
    const answered = stream({
      resolvedVersion: '4.19.8',
      releaseImage: image,
      crcBundleVersion: '4.19.7',
    });
    expect(streamAnswer(pool('hcp'), answered)).toEqual({
      release: { ocpVersion: '4.19.8', releaseImage: image },
    });
    expect(streamAnswer(pool('crc'), answered)).toEqual({
      release: { ocpVersion: '4.19.7', crcVersion: '4.19.7' },
    });
    expect(
      followingCondition(pool('crc'), { ocpVersion: '4.19.7', crcVersion: '4.19.7' }),
    ).toMatchObject({
      status: 'True',
      message: 'New instances get OpenShift 4.19.7 (CRC bundle 4.19.7) from VersionStream "s"',
      observedGeneration: 3,
    });
  });

  it('keeps using the last answer of a stream that cannot reach its update service', () => {
    const unreachable = stream({
      resolvedVersion: '4.19.8',
      releaseImage: image,
      conditions: [
        {
          type: 'Resolved',
          status: 'False',
          reason: 'UpdateServiceUnreachable',
          message: 'connect ECONNREFUSED',
          lastTransitionTime: '2026-12-01T00:00:00Z',
        },
      ],
    });
    expect(streamAnswer(pool('hcp'), unreachable)).toEqual({
      release: { ocpVersion: '4.19.8', releaseImage: image },
    });
  });

  it('says why there is nothing: no stream, or no answer for the topology yet', () => {
    expect(streamAnswer(pool('hcp'), undefined)).toMatchObject({
      unresolved: { status: 'False', reason: 'VersionStreamNotFound' },
    });
    const hcpOnly = stream({
      resolvedVersion: '4.19.8',
      releaseImage: image,
      conditions: [
        {
          type: 'Resolved',
          status: 'True',
          reason: 'Resolved',
          message: 'stable-4.19: 4.19.8',
          lastTransitionTime: '2026-12-01T00:00:00Z',
        },
      ],
    });
    expect(streamAnswer(pool('crc'), hcpOnly)).toEqual({
      unresolved: {
        type: 'VersionStreamResolved',
        status: 'False',
        reason: 'VersionStreamNotResolved',
        message:
          'VersionStream "s" has not resolved a CRC bundle version of OpenShift 4.19 yet (Resolved: stable-4.19: 4.19.8); the pool creates no instance until it has',
        observedGeneration: 3,
      },
    });
    expect(streamAnswer(pool('hcp'), stream({}))).toMatchObject({
      unresolved: { reason: 'VersionStreamNotResolved' },
    });
  });
});
