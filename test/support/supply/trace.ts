/**
 * One lease arrival of a replayed CI week, one JSON object a line
 * (docs/supply-benchmark.md#trace-format).
 */
export interface TraceLine {
  /** Seconds from the week's start, Monday 00:00 UTC. */
  at: number;
  pool: string;
  /** The OpenShift version the lease asks for ("" for any). */
  version: string;
  /** How long the job holds the cluster once bound. */
  holdSeconds: number;
}

export function formatTrace(lines: readonly TraceLine[]): string {
  return lines
    .map((l) =>
      JSON.stringify({ at: l.at, pool: l.pool, version: l.version, holdSeconds: l.holdSeconds }),
    )
    .join('\n');
}

/** The lines of a trace, sorted by arrival; a bad line is refused with its number. */
export function parseTrace(text: string): TraceLine[] {
  const lines: TraceLine[] = [];
  text.split('\n').forEach((raw, index) => {
    if (!raw.trim()) return;
    const value = JSON.parse(raw) as Partial<TraceLine>;
    const { at, pool, version, holdSeconds } = value;
    const good =
      typeof at === 'number' &&
      at >= 0 &&
      typeof pool === 'string' &&
      pool !== '' &&
      typeof version === 'string' &&
      typeof holdSeconds === 'number' &&
      holdSeconds > 0;
    if (!good)
      throw new Error(`trace line ${index + 1}: needs at ≥ 0, pool, version and holdSeconds > 0`);
    lines.push({ at, pool, version, holdSeconds });
  });
  return lines.sort((a, b) => a.at - b.at);
}
