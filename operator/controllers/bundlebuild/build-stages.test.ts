import { describe, expect, it } from '@jest/globals';
import { BUILD_STEPS, STEP_STAGE } from '../../../contracts/bundle-build.js';
import { BUILD_STAGES, stageNamed } from './build-stages.js';

describe('the stage table', () => {
  it('numbers the stages by their place, P0 to P13, then the validation, one condition each', () => {
    expect(BUILD_STAGES.map((stage) => stage.code)).toEqual([
      ...Array.from({ length: 14 }, (_, place) => `P${place}`),
      'V',
    ]);
    const conditions = BUILD_STAGES.map((stage) => stage.condition);
    expect(new Set(conditions).size).toBe(conditions.length);
    expect(conditions).not.toContain('Ready');
    expect(new Set(BUILD_STAGES.map((stage) => stage.name)).size).toBe(BUILD_STAGES.length);
  });

  it("runs every agent step, in the contract's order, first in the stage its failures are named after", () => {
    const run = BUILD_STAGES.flatMap((stage) => [...stage.steps]);
    expect([...new Set(run)]).toEqual([...BUILD_STEPS]);
    for (const step of BUILD_STEPS)
      expect(BUILD_STAGES.find((stage) => stage.steps.includes(step))?.name).toBe(STEP_STAGE[step]);
  });

  it('finds a stage and the next by name; a name of no stage is the first', () => {
    expect(stageNamed('Publish').next?.name).toBe('Validate');
    expect(stageNamed('Validate').next).toBeUndefined();
    expect(stageNamed('Unknown').stage).toBe(BUILD_STAGES[0]);
  });
});
