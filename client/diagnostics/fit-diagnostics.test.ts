import { describe, expect, it } from '@jest/globals';
import type { Diagnostics } from './diagnostics-facts.js';
import { fitDiagnostics } from './fit-diagnostics.js';

const big = (): Diagnostics => ({
  target: { kind: 'instance', name: 'i', namespace: 'ns' },
  collectedAt: '2025-01-01T00:00:00.000Z',
  objects: Array.from({ length: 30 }, (_, n) => ({
    kind: 'ClusterInstance',
    name: `i-${n}`,
    namespace: 'ns',
    phase: 'Failed',
    status: {},
    conditions: [{ type: 'Ready', status: 'False', reason: 'X', message: 'm'.repeat(2000) }],
    events: Array.from({ length: 20 }, () => ({
      type: 'Warning',
      reason: 'R',
      message: 'e'.repeat(2000),
      count: 1,
    })),
  })),
  jobs: [
    {
      job: { kind: 'Job', name: 'j', status: {}, conditions: [], events: [] },
      pods: [{ name: 'p', containers: [], log: 'l'.repeat(64 * 1024) }],
    },
  ],
  bundles: [],
  notes: [],
  truncated: [],
});

describe('fitDiagnostics', () => {
  it('fits the JSON and the Markdown together within the bound, saying what it cut', () => {
    const files = fitDiagnostics(big(), 256 * 1024);
    expect(Buffer.byteLength(files.json) + Buffer.byteLength(files.markdown)).toBeLessThanOrEqual(
      256 * 1024,
    );
    const fitted = JSON.parse(files.json) as Diagnostics;
    expect(fitted.truncated.length).toBeGreaterThan(0);
    expect(files.markdown).toContain('## Cut to fit the bounds');
    expect(files.markdown).toContain(fitted.truncated[0]);
  });

  it('leaves a report within the bound as it is', () => {
    const small = { ...big(), objects: [], jobs: [] };
    const files = fitDiagnostics(small, 256 * 1024);
    expect(JSON.parse(files.json)).toEqual(small);
  });
});
