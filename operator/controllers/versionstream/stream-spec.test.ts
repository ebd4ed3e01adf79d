import { describe, expect, it } from '@jest/globals';
import { invalidSpec, withDefaults } from './stream-spec.js';

describe('a stream spec', () => {
  it('is valid for a minor in any channel group, pinned or not', () => {
    expect(invalidSpec(withDefaults({ minor: '4.19' }))).toBeUndefined();
    expect(
      invalidSpec(withDefaults({ minor: '4.18', channelGroup: 'eus', pin: '4.18.3' })),
    ).toBeUndefined();
  });

  it('names what is wrong: a pin of another minor, an EUS channel of an odd minor', () => {
    expect(invalidSpec(withDefaults({ minor: '4.19', pin: '4.18.3' }))).toBe(
      'spec.pin "4.18.3" is not a version of spec.minor 4.19, such as 4.19.7',
    );
    expect(invalidSpec(withDefaults({ minor: '4.19', channelGroup: 'eus' }))).toContain(
      'there is no channel eus-4.19',
    );
  });
});
