import { describe, expect, it } from '@jest/globals';
import type { Condition } from './conditions.js';
import { startedWait } from './waits.js';

const NEEDS_A_PERSON = new Set(['PoolNotFound', 'NamespaceDisabled']);
const ready = (status: Condition['status'], reason: string, message = `${reason} message`) => [
  { type: 'Ready', status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' },
];
const started = (before: Condition[] | undefined, after: Condition[] | undefined) =>
  startedWait(before, after, 'Ready', NEEDS_A_PERSON);

describe('startedWait', () => {
  it('announces the pass that turns the condition to a reason a person must act on', () => {
    expect(started(undefined, ready('False', 'PoolNotFound'))).toMatchObject({
      reason: 'PoolNotFound',
      message: 'PoolNotFound message',
    });
    expect(
      started(ready('False', 'WaitingForCapacity'), ready('False', 'PoolNotFound')),
    ).toMatchObject({
      reason: 'PoolNotFound',
    });
    expect(started(ready('True', 'PoolNotFound'), ready('False', 'PoolNotFound'))).toMatchObject({
      reason: 'PoolNotFound',
    });
  });

  it('announces nothing on a later pass of the same wait, also when its message changes', () => {
    expect(started(ready('False', 'PoolNotFound'), ready('False', 'PoolNotFound'))).toBeUndefined();
    expect(
      started(ready('False', 'PoolNotFound', 'one'), ready('False', 'PoolNotFound', 'two')),
    ).toBeUndefined();
  });

  it('announces a wait that ended and started again', () => {
    const waiting = ready('False', 'PoolNotFound');
    const ended = ready('False', 'WaitingForCapacity');
    expect(started(undefined, waiting)).toBeDefined();
    expect(started(waiting, ended)).toBeUndefined();
    expect(started(ended, waiting)).toBeDefined();
  });

  it('announces nothing for a wait that needs no person, nor for a True condition', () => {
    expect(started(undefined, ready('False', 'WaitingForCapacity'))).toBeUndefined();
    expect(started(undefined, ready('True', 'PoolNotFound'))).toBeUndefined();
    expect(started(ready('False', 'PoolNotFound'), undefined)).toBeUndefined();
  });

  it('reads only the condition of the type asked for', () => {
    const other = [{ ...ready('False', 'PoolNotFound')[0]!, type: 'Bound' }];
    expect(started(undefined, other)).toBeUndefined();
    expect(started(other, ready('False', 'PoolNotFound'))).toBeDefined();
  });
});
