import type { BackoffPolicy } from '../../runtime/backoff.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { Clock } from '../../runtime/clock.js';
import type { GitHubConnection } from './github-connection.js';
import type { GitHubGate } from './github-gate.js';
import type { JobsPage, WorkflowJob } from './github-api.js';
import type { LeaseRun } from './lease-run.js';
import { describeRun, runKey } from './lease-run.js';
import type { UnknownRun } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';

/** What the leases of a run are told: its jobs, or why they are unknown. */
export type RunState =
  | {
      kind: 'jobs';
      jobs: WorkflowJob[];
      /** Whether these are all of the attempt's jobs (an attempt of more than MAX_PAGES pages is not). */
      complete: boolean;
      retryAtMs: number;
    }
  | UnknownRun;

/** GitHub pages the jobs list by 100 at most; a run attempt with more than this many pages is read in part. */
const MAX_PAGES = 10;

interface RunEntry {
  /** The pages last read, with their ETags, for conditional requests. */
  pages: { etag?: string; data: JobsPage }[];
  state?: RunState;
  notFoundInRow: number;
  inFlight?: Promise<RunState>;
  usedAtMs: number;
}

/**
 * The answers about run attempts that every lease of a run shares: one listing of the attempt's
 * jobs per poll interval, however many leases ask; asked again with the ETags of the last answer
 * (a 304 costs no rate limit); a run GitHub does not know is asked about with backoff. Requests go
 * out only while the gate is open.
 */
export class RunAnswers {
  private readonly entries = new Map<string, RunEntry>();

  constructor(
    private readonly connection: GitHubConnection,
    private readonly gate: GitHubGate,
    private readonly clock: Clock,
    private readonly pollIntervalMs: number,
    private readonly backoff: BackoffPolicy,
  ) {}

  async state(run: LeaseRun): Promise<RunState> {
    const now = this.clock.now();
    this.forgetUnused(now);
    const key = runKey(run);
    const entry = this.entries.get(key) ?? { pages: [], notFoundInRow: 0, usedAtMs: now };
    this.entries.set(key, entry);
    entry.usedAtMs = now;
    if (entry.inFlight) return entry.inFlight;
    if (entry.state && now < entry.state.retryAtMs) return entry.state;
    const closed = this.gate.closedAt(now);
    if (closed) return closed;
    entry.inFlight = this.ask(run, entry).finally(() => (entry.inFlight = undefined));
    entry.state = await entry.inFlight;
    return entry.state;
  }

  private async ask(run: LeaseRun, entry: RunEntry): Promise<RunState> {
    const api = await this.connection.api();
    if ('invalid' in api) {
      this.gate.record({ kind: 'invalid', message: api.invalid }, this.clock.now());
      return this.gate.closedAt(this.clock.now()) ?? this.unknownNow(api.invalid);
    }
    const jobs: WorkflowJob[] = [];
    let total = 0;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const known = entry.pages[page - 1];
      const answer = await api.attemptJobs(run, page, known?.etag);
      const now = this.clock.now();
      this.gate.record(answer, now);
      if (answer.kind === 'not-found') return this.notFound(run, entry, now, answer.message);
      if (answer.kind === 'rejected') this.connection.forget();
      let data: JobsPage | undefined;
      if (answer.kind === 'ok') {
        data = answer.data;
        entry.pages[page - 1] = { etag: answer.etag, data };
      } else if (answer.kind === 'not-modified') {
        data = known?.data;
      }
      if (!data)
        return (
          this.gate.closedAt(now) ?? this.unknownNow(`GitHub gave no jobs for ${describeRun(run)}`)
        );
      jobs.push(...data.jobs);
      total = data.total_count;
      if (jobs.length >= total || data.jobs.length === 0) break;
    }
    entry.notFoundInRow = 0;
    entry.pages.length = Math.ceil(jobs.length / 100) || 1;
    return {
      kind: 'jobs',
      jobs,
      complete: jobs.length >= total,
      retryAtMs: this.clock.now() + this.pollIntervalMs,
    };
  }

  private notFound(run: LeaseRun, entry: RunEntry, now: number, message: string): UnknownRun {
    entry.notFoundInRow += 1;
    entry.pages = [];
    const retryAtMs =
      now + Math.max(this.pollIntervalMs, backoffDelay(this.backoff, entry.notFoundInRow));
    return {
      kind: 'unknown',
      status: 'Unknown',
      reason: RunReason.RunNotFound,
      message: `GitHub does not know ${describeRun(run)} (${message}): the run or attempt does not exist, or the operator's credential cannot read ${run.owner}/${run.repo}; asking again at ${new Date(retryAtMs).toISOString()}`,
      retryAtMs,
    };
  }

  private unknownNow(message: string): UnknownRun {
    return {
      kind: 'unknown',
      status: 'Unknown',
      reason: RunReason.GitHubUnavailable,
      message,
      retryAtMs: this.clock.now() + this.pollIntervalMs,
    };
  }

  /** Runs no lease asked about for ten intervals are forgotten (their leases are gone). */
  private forgetUnused(now: number): void {
    for (const [key, entry] of this.entries)
      if (!entry.inFlight && now - entry.usedAtMs > 10 * this.pollIntervalMs)
        this.entries.delete(key);
  }
}
