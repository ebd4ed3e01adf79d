import { describe, expect, test } from '@jest/globals';
import { notCurrentReason } from './vmi-monitor.js';

const ref = { namespace: 'ci', name: 'crc-1', uid: 'uid-1' };

describe('VMI currency', () => {
  test('a Running VMI with the UID is current', () => {
    expect(
      notCurrentReason({ metadata: { uid: 'uid-1' }, status: { phase: 'Running' } }, ref),
    ).toBeUndefined();
  });

  test('another UID or a phase other than Running is not', () => {
    expect(
      notCurrentReason({ metadata: { uid: 'uid-2' }, status: { phase: 'Running' } }, ref),
    ).toBe('VirtualMachineInstance ci/crc-1 UID changed from uid-1 to uid-2');
    expect(
      notCurrentReason({ metadata: { uid: 'uid-1' }, status: { phase: 'Pending' } }, ref),
    ).toContain('is not running (phase Pending)');
  });
});
