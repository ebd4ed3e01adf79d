import { describe, expect, it } from '@jest/globals';
import { CHECKED } from './build-recorded.js';
import { ROLE } from './build-record.js';

describe('the objects every build pass checks', () => {
  it('are all the roles but the VMIs, so that a role added later is checked too', () => {
    const vmis: string[] = [ROLE.installerVmi, ROLE.targetVmi];
    expect(Object.keys(CHECKED).sort()).toEqual(
      Object.values(ROLE)
        .filter((role) => !vmis.includes(role))
        .sort(),
    );
  });
});
