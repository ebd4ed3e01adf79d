import { describe, expect, it } from '@jest/globals';
import { OwnershipConflictError } from './ownership.js';
import { InstanceFailure, Reason } from './reasons.js';
import type { Step, StepResult, Wait } from './steps.js';
import { RECORD, runSteps } from './steps.js';

/** Steps that note their names in `ran` when they run, each answering what it is given. */
function steps(
  ran: string[],
  ...answers: [name: string, answer: () => StepResult, recordsOnly?: boolean][]
): Step[] {
  return answers.map(([name, answer, recordsOnly]) => ({
    name,
    recordsOnly,
    conflict: Reason.APIEndpointConflict,
    run: () => {
      ran.push(name);
      return answer();
    },
  }));
}

const wait = (reason: string): Wait => ({ reason, message: `waiting: ${reason}` });
const holds = (): undefined => undefined;

describe('runSteps', () => {
  it('runs every step in order when each holds', async () => {
    const ran: string[] = [];
    const verdict = await runSteps(steps(ran, ['a', holds], ['b', holds], ['c', holds]), {
      unexpected: 'fail',
    });
    expect(verdict).toEqual({ holds: true });
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('stops at the first step that does not hold and says why', async () => {
    const ran: string[] = [];
    const verdict = await runSteps(steps(ran, ['a', holds], ['b', () => wait('B')], ['c', holds]), {
      unexpected: 'fail',
    });
    expect(verdict).toEqual({ wait: wait('B') });
    expect(ran).toEqual(['a', 'b']);
  });

  it('goes on after a record through steps that only record, and stops before the next', async () => {
    const ran: string[] = [];
    const verdict = await runSteps(
      steps(
        ran,
        ['endpoint', () => RECORD, true],
        ['binding', () => RECORD, true],
        ['route', holds],
        ['job', holds],
      ),
      { unexpected: 'fail' },
    );
    expect(verdict).toBe(RECORD);
    expect(ran).toEqual(['endpoint', 'binding']);
  });

  it('fails the instance with the step reason on an ownership conflict', async () => {
    const conflict = (): never => {
      throw new OwnershipConflictError('Route x is not owned by ClusterInstance y');
    };
    const run = runSteps(steps([], ['route', conflict]), { unexpected: 'retry' });
    await expect(run).rejects.toThrow(InstanceFailure);
    await expect(run).rejects.toMatchObject({
      reason: Reason.APIEndpointConflict,
      message: 'Route x is not owned by ClusterInstance y',
    });
  });

  it('fails an unexpected error with ReconcileError, or hands it on to be retried', async () => {
    const broken = (): never => {
      throw new Error('disk source unreadable');
    };
    await expect(
      runSteps(steps([], ['disk', broken]), { unexpected: 'fail' }),
    ).rejects.toMatchObject({ reason: Reason.ReconcileError, message: 'disk source unreadable' });
    const retried = runSteps(steps([], ['disk', broken]), { unexpected: 'retry' });
    await expect(retried).rejects.not.toBeInstanceOf(InstanceFailure);
    await expect(retried).rejects.toThrow('disk source unreadable');
  });

  it('turns an error the policy calls a wait into that wait', async () => {
    class KeyError extends Error {}
    const ran: string[] = [];
    const verdict = await runSteps(
      steps(
        ran,
        [
          'key',
          () => {
            throw new KeyError('no key');
          },
        ],
        ['after', holds],
      ),
      {
        unexpected: 'fail',
        waitFor: (error) => (error instanceof KeyError ? wait('Key') : undefined),
      },
    );
    expect(verdict).toEqual({ wait: wait('Key') });
    expect(ran).toEqual(['key']);
  });
});
