/** One lease of a namespace that is asked about: its run attempt and when it was created. */
export interface AskingLease {
  runKey: string;
  createdMs: number;
}

/** The run attempts a namespace's leases are asked about, out of how many they name. */
export interface AdmittedRuns {
  admitted: ReadonlySet<string>;
  distinct: number;
}

/**
 * The first `cap` distinct run attempts a namespace's leases name, the oldest first (by the
 * oldest lease naming each; ties by name): runs already asked about keep their place when a
 * tenant adds more, and a run over the cap moves up as others' leases go
 * (docs/reference/kinds.md#what-a-namespace-may-spend).
 */
export function admittedRuns(leases: readonly AskingLease[], cap: number): AdmittedRuns {
  const oldest = new Map<string, number>();
  for (const { runKey, createdMs } of leases)
    oldest.set(runKey, Math.min(createdMs, oldest.get(runKey) ?? Infinity));
  const ordered = [...oldest].sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : a > b ? 1 : 0));
  return { admitted: new Set(ordered.slice(0, cap).map(([key]) => key)), distinct: oldest.size };
}
