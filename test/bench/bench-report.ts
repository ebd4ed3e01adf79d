import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../dev/control-plane/project-root.js';

/** Percentile (0–100) of a list of numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface BenchResult {
  benchmark: string;
  /** What the figures are, with units. */
  description: string;
  figures: Record<string, number>;
  /** The figure measured the plain way in the same run, that the target is relative to. */
  reference: { name: string; value: number };
  /** The figure compared with the reference. */
  measured: { name: string; value: number };
  target: string;
  targetMet: boolean;
}

/** Prints a result as a table and writes it to test/bench/results/<benchmark>.json. */
export async function reportBench(result: BenchResult): Promise<void> {
  const ratio = result.measured.value / result.reference.value;
  const dir = path.join(projectRoot(), 'test', 'bench', 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, `${result.benchmark}.json`),
    JSON.stringify({ ...result, ratio }, null, 2) + '\n',
  );
  const rows = Object.entries(result.figures).map(
    ([name, value]) => `  ${name.padEnd(40)} ${value.toFixed(2)}`,
  );
  process.stdout.write(
    [
      `\n${result.benchmark}: ${result.description}`,
      ...rows,
      `  ratio ${result.measured.name} / ${result.reference.name} = ${ratio.toFixed(2)} (target ${result.target}: ${result.targetMet ? 'met' : 'NOT met'})`,
      '',
    ].join('\n'),
  );
}
