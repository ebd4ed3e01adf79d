import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../client/kube/api-error.js';
import { CreateRefused, OwnershipConflictError, StepFailure } from './step-errors.js';
import type { Step } from './step-list.js';
import { runSteps, steps } from './step-list.js';
import type { Verdict, Wait } from './verdict.js';
import { failed, holds, mapVerdict, recorded, waiting } from './verdict.js';

const wait = (reason: string): Wait => ({ reason, message: `waiting: ${reason}` });

/** A step that notes its name in `ran` and answers `answer`. */
function step<Out extends object>(
  ran: string[],
  name: string,
  answer: () => Verdict<Out>,
  options: Partial<Pick<Step<object, Out>, 'recordsOnly' | 'conflict'>> = {},
): Step<object, Out> {
  return {
    name,
    ...options,
    run: () => {
      ran.push(name);
      return answer();
    },
  };
}

describe('runSteps', () => {
  it('runs every step in order when each holds, and hands on what they made', async () => {
    const ran: string[] = [];
    const list = steps()
      .then(step(ran, 'a', () => holds({ endpoint: 'api.example' })))
      .then(step(ran, 'b', () => holds()))
      .then(step(ran, 'c', () => holds({ port: 6443 })));

    const verdict = await runSteps(list, {});

    expect(verdict).toEqual({ holds: { endpoint: 'api.example', port: 6443 } });
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('gives each step the outputs of the steps before it, a later output replacing an earlier', async () => {
    const seen: unknown[] = [];
    const list = steps<{ namespace: string }>()
      .then({ name: 'host', run: ({ namespace }) => holds({ host: `api.${namespace}` }) })
      .then({ name: 'version', run: () => holds({ version: 'from the instance' }) })
      .then({
        name: 'handoff',
        run: ({ host, version }) => {
          seen.push([host, version]);
          return holds({ version: 'from the handoff' });
        },
      })
      .then({
        name: 'publish',
        run: (input) => {
          seen.push(input);
          return holds();
        },
      });

    const verdict = await runSteps(list, { namespace: 'tenant' });

    expect(seen).toEqual([
      ['api.tenant', 'from the instance'],
      { namespace: 'tenant', host: 'api.tenant', version: 'from the handoff' },
    ]);
    expect(verdict).toEqual({ holds: seen[1] });
  });

  it('lets no step read what no step before it hands on', () => {
    const list = steps().then({ name: 'host', run: () => holds({ host: 'api.example' }) });
    // @ts-expect-error: no step before this one hands on a port.
    list.then({ name: 'route', run: ({ port }: { port: number }) => holds({ url: `:${port}` }) });
    expect(list.steps.map((s) => s.name)).toEqual(['host']);
  });

  it('stops at the first step that does not hold and says why', async () => {
    const ran: string[] = [];
    const list = steps()
      .then(step(ran, 'a', () => holds()))
      .then(step(ran, 'b', () => waiting(wait('B'))))
      .then(step(ran, 'c', () => holds()));

    expect(await runSteps(list, {})).toEqual({ wait: wait('B') });
    expect(ran).toEqual(['a', 'b']);
  });

  it('goes on after a record through steps that only record, and stops before the next', async () => {
    const ran: string[] = [];
    const list = steps()
      .then(step(ran, 'endpoint', () => recorded({ host: 'api.example' }), { recordsOnly: true }))
      .then(step(ran, 'binding', () => recorded(), { recordsOnly: true }))
      .then(step(ran, 'version', () => holds({ version: '4.16' }), { recordsOnly: true }))
      .then(step(ran, 'route', () => holds()))
      .then(step(ran, 'job', () => holds()));

    const verdict = await runSteps(list, {});

    expect(verdict).toEqual({ record: { host: 'api.example', version: '4.16' } });
    expect(ran).toEqual(['endpoint', 'binding', 'version']);
  });

  it('answers record when the last step records', async () => {
    const list = steps().then(step([], 'placement', () => recorded({ at: 'tenant' })));
    expect(await runSteps(list, {})).toEqual({ record: { at: 'tenant' } });
  });

  it('answers a failure a step says or throws', async () => {
    const failure = new StepFailure('DataVolumeFailed', 'the import failed');
    const said = steps().then(step([], 'disk', () => failed(failure)));
    const thrown = steps().then(
      step([], 'disk', () => {
        throw failure;
      }),
    );

    expect(await runSteps(said, {})).toEqual({ fail: failure });
    expect(await runSteps(thrown, {}, { unexpected: 'ReconcileError' })).toEqual({
      fail: failure,
    });
  });

  it("fails with the step's reason on an ownership conflict", async () => {
    const list = steps().then(
      step(
        [],
        'route',
        () => {
          throw new OwnershipConflictError('Route x is not owned by ClusterInstance y');
        },
        { conflict: 'APIEndpointConflict' },
      ),
    );

    const verdict = await runSteps(list, {});

    expect(verdict).toEqual({ fail: expect.any(StepFailure) });
    expect('fail' in verdict && verdict.fail).toMatchObject({
      reason: 'APIEndpointConflict',
      message: 'Route x is not owned by ClusterInstance y',
    });
  });

  it('fails an unexpected error with the policy reason, or throws it on without one', async () => {
    const broken = (): never => {
      throw new Error('disk source unreadable');
    };
    const conflict = (): never => {
      throw new OwnershipConflictError('a conflict in a step that names no reason');
    };

    const failing = await runSteps(steps().then(step([], 'disk', broken)), {}, { unexpected: 'X' });
    expect('fail' in failing && failing.fail).toMatchObject({
      reason: 'X',
      message: 'disk source unreadable',
    });
    const unnamed = await runSteps(steps().then(step([], 'k', conflict)), {}, { unexpected: 'X' });
    expect('fail' in unnamed && unnamed.fail).toMatchObject({ reason: 'X' });
    await expect(runSteps(steps().then(step([], 'disk', broken)), {})).rejects.toThrow(
      'disk source unreadable',
    );
  });

  it('throws API errors and refused creates on, to be retried with backoff', async () => {
    for (const error of [
      new ApiError(500, 'InternalError', 'etcd is unhappy'),
      new CreateRefused('creating Job x was refused: exceeded quota'),
    ]) {
      const list = steps().then(
        step([], 'job', () => {
          throw error;
        }),
      );
      await expect(runSteps(list, {}, { unexpected: 'ReconcileError' })).rejects.toBe(error);
    }
  });

  it('turns an error the policy calls a wait into that wait', async () => {
    const ran: string[] = [];
    const list = steps()
      .then(
        step(ran, 'create', () => {
          throw new CreateRefused('refused');
        }),
      )
      .then(step(ran, 'after', () => holds()));

    const verdict = await runSteps(
      list,
      {},
      { waitFor: (error) => (error instanceof CreateRefused ? wait('Refused') : undefined) },
    );

    expect(verdict).toEqual({ wait: wait('Refused') });
    expect(ran).toEqual(['create']);
  });

  it('runs a list as one step of a longer list', async () => {
    const ran: string[] = [];
    const stage = steps<{ attempt: string }>()
      .then(step(ran, 'inputs', () => recorded({ inputs: 'snapshot' })))
      .then(step(ran, 'key', () => holds()));
    const build = steps<{ attempt: string }>()
      .then({ name: 'stage', run: (input) => runSteps(stage, input) })
      .then(step(ran, 'next stage', () => holds()));

    expect(await runSteps(build, { attempt: 'a1' })).toEqual({
      record: { attempt: 'a1', inputs: 'snapshot' },
    });
    expect(ran).toEqual(['inputs']);
  });
});

describe('mapVerdict', () => {
  it('maps the output of holds and record, and passes a wait or failure on', () => {
    const named = (object: { uid: string }) => ({ disk: object.uid });
    const failure = new StepFailure('Lost', 'gone');

    expect(mapVerdict(holds({ uid: 'u1' }), named)).toEqual({ holds: { disk: 'u1' } });
    expect(mapVerdict(recorded({ uid: 'u2' }), named)).toEqual({ record: { disk: 'u2' } });
    expect(mapVerdict(waiting(wait('W')), named)).toEqual({ wait: wait('W') });
    expect(mapVerdict(failed(failure), named)).toEqual({ fail: failure });
  });
});
