import { describe, expect, it } from '@jest/globals';
import { diskFailure } from './crc-disk-failure.js';

const dataVolume = (status: Record<string, unknown>) => ({
  metadata: { namespace: 'ci', name: 'pool-0-rootdisk', uid: 'dv-uid', resourceVersion: '1' },
  status,
});
const running = (status: string, reason: string, message = '') => ({
  type: 'Running',
  status,
  reason,
  message,
});
const LOOK = 'look further with kubectl -n ci describe datavolume pool-0-rootdisk';

describe('a root disk that CDI cannot fill', () => {
  it.each([
    [
      'an importer that exits with an error (404)',
      {
        phase: 'ImportInProgress',
        restartCount: 3,
        conditions: [running('False', 'Error', 'Unable to connect to http data source: 404')],
      },
      `DataVolume ci/pool-0-rootdisk cannot be filled: CDI reports Running=False (Error): "Unable to connect to http data source: 404", importer restarted 3 times; ${LOOK}`,
    ],
    [
      'a clone the populator refuses',
      {
        phase: 'CloneScheduled',
        conditions: [
          running(
            'False',
            'Error',
            'target resources requests storage size is smaller than the source 1 < 2',
          ),
        ],
      },
      `DataVolume ci/pool-0-rootdisk cannot be filled: CDI reports Running=False (Error): "target resources requests storage size is smaller than the source 1 < 2"; ${LOOK}`,
    ],
    [
      'an importer image that cannot be pulled',
      {
        phase: 'ImportScheduled',
        conditions: [running('False', 'ImagePullFailed', 'Failed to pull image: quay.io/x')],
      },
      `DataVolume ci/pool-0-rootdisk cannot be filled: CDI reports Running=False (ImagePullFailed): "Failed to pull image: quay.io/x"; ${LOOK}`,
    ],
    [
      'a lost claim',
      { phase: 'Failed', conditions: [running('False', 'ClaimLost', 'PVC lost')] },
      `DataVolume ci/pool-0-rootdisk cannot be filled: CDI reports phase Failed (ClaimLost): "PVC lost"; ${LOOK}`,
    ],
  ])('is a failure: %s', (_, status, message) => {
    expect(diskFailure(dataVolume(status))).toBe(message);
  });

  it.each([
    ['scheduled', { phase: 'ImportScheduled', conditions: [running('False', 'Pending')] }],
    [
      'a container being created',
      { phase: 'ImportScheduled', conditions: [running('False', 'ContainerCreating')] },
    ],
    [
      'running again after a restart',
      {
        phase: 'ImportInProgress',
        restartCount: 1,
        conditions: [running('True', 'Pod is running')],
      },
    ],
    ['done', { phase: 'Succeeded', conditions: [running('False', 'Completed')] }],
    ['without status', {}],
  ])('is no failure: %s', (_, status) => {
    expect(diskFailure(dataVolume(status))).toBeUndefined();
  });
});
