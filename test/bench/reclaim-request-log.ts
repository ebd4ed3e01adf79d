import type { StandInRequest } from '../support/github-stand-in.js';

const JOBS_PATH = /^\/repos\/[^/]+\/[^/]+\/actions\/runs\/(\d+)\/attempts\/\d+\/jobs$/;

/** One poll of the bench: its span on the test clock and the runs that still had leases then. */
export interface Poll {
  startMs: number;
  endMs: number;
  live: ReadonlySet<number>;
}

/** What the stand-in's log says about the requests per run and poll. */
export interface PerPoll {
  /** The most requests one run cost in one poll. */
  most: number;
  /** Requests per live run and poll, on average. */
  mean: number;
  /** Live runs of a poll that were not asked about in it. */
  unasked: number;
  /** Requests about a run that had no lease left. */
  afterRelease: number;
}

/** The run id a request for a run attempt's jobs asks about, if it is one. */
export function runOf(request: StandInRequest): number | undefined {
  const match = JOBS_PATH.exec(request.path);
  return match ? Number(match[1]) : undefined;
}

/** Requests per run and poll, from the log: one answer a poll serves every lease of a run. */
export function requestsPerRunPerPoll(
  requests: readonly StandInRequest[],
  polls: readonly Poll[],
): PerPoll {
  let most = 0;
  let asked = 0;
  let pairs = 0;
  let unasked = 0;
  let afterRelease = 0;
  for (const poll of polls) {
    const counts = new Map<number, number>();
    for (const request of requests) {
      const run = runOf(request);
      if (run === undefined || request.atMs < poll.startMs || request.atMs >= poll.endMs) continue;
      counts.set(run, (counts.get(run) ?? 0) + 1);
    }
    for (const [run, count] of counts) {
      if (!poll.live.has(run)) afterRelease += count;
      most = Math.max(most, count);
    }
    for (const run of poll.live) {
      const count = counts.get(run) ?? 0;
      if (count === 0) unasked += 1;
      asked += count;
      pairs += 1;
    }
  }
  return { most, mean: pairs ? asked / pairs : 0, unasked, afterRelease };
}

/** The most of `times` (sorted or not) within any span of `windowMs` that starts at one of them. */
export function mostWithin(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end]! < sorted[start]! + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

/** Each namespace's most requests within any hour, counting every request (a 304 too). */
export function requestsPerNamespacePerHour(
  requests: readonly StandInRequest[],
  namespaceOf: ReadonlyMap<number, string>,
): Map<string, number> {
  const times = new Map<string, number[]>();
  for (const request of requests) {
    const run = runOf(request);
    const namespace = run === undefined ? undefined : namespaceOf.get(run);
    if (namespace === undefined) continue;
    const at = times.get(namespace) ?? [];
    at.push(request.atMs);
    times.set(namespace, at);
  }
  return new Map([...times].map(([namespace, at]) => [namespace, mostWithin(at, 3_600_000)]));
}
