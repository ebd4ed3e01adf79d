import { describe, expect, it } from '@jest/globals';
import { subjectOf } from './own-identity.js';

describe('subjectOf', () => {
  it('names a ServiceAccount by its namespace and name', () => {
    expect(subjectOf('system:serviceaccount:ci:guestcluster-ci')).toEqual({
      kind: 'ServiceAccount',
      namespace: 'ci',
      name: 'guestcluster-ci',
    });
  });

  it('names anyone else as a User', () => {
    expect(subjectOf('alice@example.com')).toEqual({ kind: 'User', name: 'alice@example.com' });
    expect(subjectOf('system:serviceaccount:ci')).toEqual({
      kind: 'User',
      name: 'system:serviceaccount:ci',
    });
  });

  it('names no one for an anonymous or unknown identity', () => {
    expect(subjectOf('system:anonymous')).toBeUndefined();
    expect(subjectOf('')).toBeUndefined();
  });
});
