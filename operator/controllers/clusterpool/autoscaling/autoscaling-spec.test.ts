import { autoscalingPolicy } from './autoscaling-spec.js';

describe('autoscalingPolicy', () => {
  it('fills in the defaults', () => {
    expect(autoscalingPolicy({ maxSpares: 10 })).toEqual({
      minSpares: 0,
      maxSpares: 10,
      coverage: 0.95,
      scaleDownDelayMs: 15 * 60_000,
    });
  });

  it.each([
    [
      { maxSpares: 2, minSpares: 3 },
      /spec\.autoscaling\.maxSpares must be a whole number ≥ minSpares 3 \(got 2\)/,
    ],
    [{ maxSpares: 2, minSpares: -1 }, /spec\.autoscaling\.minSpares/],
    [{ maxSpares: 2, targetRunOutPercent: 0 }, /spec\.autoscaling\.targetRunOutPercent/],
    [
      { maxSpares: 2, scaleDownDelay: '30 minutes' },
      /spec\.autoscaling\.scaleDownDelay must be a duration such as 30m \(got "30 minutes"\)/,
    ],
  ])('refuses %j, naming the field', (spec, message) => {
    expect(() => autoscalingPolicy(spec)).toThrow(message);
  });
});
