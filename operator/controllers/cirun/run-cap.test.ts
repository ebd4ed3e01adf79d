import { describe, expect, it } from '@jest/globals';
import { admittedRuns } from './run-cap.js';

describe("the runs a namespace's leases are asked about", () => {
  it('are the first distinct runs by their oldest lease, ties by name', () => {
    const { admitted, distinct } = admittedRuns(
      [
        { runKey: 'r#3', createdMs: 30 },
        { runKey: 'r#1', createdMs: 50 },
        { runKey: 'r#1', createdMs: 10 },
        { runKey: 'r#2', createdMs: 30 },
        { runKey: 'r#4', createdMs: 5 },
      ],
      3,
    );
    expect(distinct).toBe(4);
    expect([...admitted].sort()).toEqual(['r#1', 'r#2', 'r#4']);
  });
});
