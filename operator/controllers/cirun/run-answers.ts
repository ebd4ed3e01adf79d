import type { BackoffPolicy } from '../../runtime/backoff.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { Clock } from '../../runtime/clock.js';
import type { GitHubAnswer, RepositoryFailure, RunFailure } from './github-answer.js';
import type { JobsPage, WorkflowJob } from './github-api.js';
import { REQUEST_TIMEOUT_MS } from './github-api.js';
import type { GitHubConnection } from './github-connection.js';
import type { GitHubGate } from './github-gate.js';
import { budgetExhausted, repositoryHeldBack, runHeldBack } from './held-back.js';
import type { LeaseRun } from './lease-run.js';
import { runKey } from './lease-run.js';
import { NamespaceBudget } from './namespace-budget.js';
import type { UnknownRun } from './reclaim-reasons.js';
import { RunReason } from './reclaim-reasons.js';
import { RequestSlots } from './request-slots.js';

/** The jobs of a run attempt as GitHub listed them, and when it was asked. */
export interface RunJobs {
  kind: 'jobs';
  jobs: WorkflowJob[];
  /** Whether these are all of the attempt's jobs (an attempt of more than MAX_PAGES pages is not). */
  complete: boolean;
  /** When the request went out (the operator's clock): the answer says nothing of later leases. */
  fetchedAtMs: number;
  retryAtMs: number;
}

/** A request for the run is under way: the lease is woken when it is answered, or at retryAtMs. */
export interface AskingRun {
  kind: 'asking';
  retryAtMs: number;
}

/** What the leases of a run are told: its jobs, why they are unknown, or that GitHub is being asked. */
export type RunState = RunJobs | UnknownRun | AskingRun;

/** Who wants to know: the lease (woken with the answer) and the namespace that pays for the request. */
export interface Asker {
  namespace: string;
  leaseKey: string;
}

/** What RunAnswers takes from the settings. */
export interface AnswerSettings {
  pollIntervalMs: number;
  backoff: BackoffPolicy;
  requestsPerNamespacePerHour: number;
}

/** GitHub pages the jobs list by 100 at most; a run attempt with more than this many pages is read in part. */
const MAX_PAGES = 10;
/** Requests to GitHub at once: GitHub asks integrators to keep them few (secondary rate limits). */
const MAX_REQUESTS_IN_FLIGHT = 4;

interface RunEntry {
  /** The pages last read, with their ETags, for conditional requests. */
  pages: { etag?: string; data: JobsPage }[];
  state?: RunJobs | UnknownRun;
  failuresInRow: number;
  asking: boolean;
  /** The leases to wake once the request under way is answered. */
  waiters: Set<string>;
  usedAtMs: number;
}

interface RepositoryEntry {
  failuresInRow: number;
  held: UnknownRun;
}

/**
 * The answers about run attempts that every lease of a run shares: one listing of the attempt's
 * jobs per poll interval, however many leases ask; asked again with the ETags of the last answer
 * (a 304 costs no rate limit). Requests go out off the controller's workers (RequestSlots), only
 * while the gate is open and the asking namespace has budget left; an answer about one run or
 * one repository holds back only that run or repository, with a doubling backoff
 * (docs/reference/kinds.md#what-holds-reclaim-back).
 */
export class RunAnswers {
  private readonly runs = new Map<string, RunEntry>();
  private readonly repositories = new Map<string, RepositoryEntry>();
  private readonly budget: NamespaceBudget;
  private readonly slots = new RequestSlots(MAX_REQUESTS_IN_FLIGHT);
  private readonly underWay = new Set<Promise<void>>();

  constructor(
    private readonly connection: GitHubConnection,
    private readonly gate: GitHubGate,
    private readonly clock: Clock,
    private readonly settings: AnswerSettings,
    private readonly wake: (leaseKey: string) => void,
  ) {
    this.budget = new NamespaceBudget(settings.requestsPerNamespacePerHour);
  }

  /**
   * The run's state for a lease. GitHub is not asked before `answersFrom` (an answer from before
   * could not release the lease); with `fresh`, jobs listed before it do not count either, and
   * GitHub is asked again.
   */
  state(run: LeaseRun, asker: Asker, answersFrom: number, fresh = false): RunState {
    const now = this.clock.now();
    this.forgetUnused(now);
    const held = this.repositories.get(repositoryKey(run))?.held;
    if (held && now < held.retryAtMs) return held;
    const entry = this.entry(runKey(run), now);
    if (entry.asking) return this.await(entry, asker, now);
    const cached = entry.state;
    const predates = fresh && cached?.kind === 'jobs' && cached.fetchedAtMs < answersFrom;
    if (cached && now < cached.retryAtMs && !predates) return cached;
    if (now < answersFrom) return { kind: 'asking', retryAtMs: answersFrom };
    const closed = this.gate.closedAt(now);
    if (closed) return closed;
    const exhausted = this.budget.exhaustedUntil(asker.namespace, now);
    if (exhausted !== undefined)
      return budgetExhausted(run, asker.namespace, this.budget.perWindow, exhausted);
    this.startAsking(run, entry, asker.namespace);
    return this.await(entry, asker, now);
  }

  /** Resolves once no request is under way (for tests that drive reconciles by hand). */
  async idle(): Promise<void> {
    while (this.underWay.size > 0) await Promise.all([...this.underWay]);
  }

  private await(entry: RunEntry, asker: Asker, now: number): AskingRun {
    entry.waiters.add(asker.leaseKey);
    // The request ends within its timeout (and waits for a slot); this is the lease's backstop.
    return { kind: 'asking', retryAtMs: now + REQUEST_TIMEOUT_MS };
  }

  private entry(key: string, now: number): RunEntry {
    const entry = this.runs.get(key) ?? {
      pages: [],
      failuresInRow: 0,
      asking: false,
      waiters: new Set<string>(),
      usedAtMs: now,
    };
    entry.usedAtMs = now;
    this.runs.set(key, entry);
    return entry;
  }

  private startAsking(run: LeaseRun, entry: RunEntry, namespace: string): void {
    entry.asking = true;
    const task = this.slots
      .run(namespace, () => this.ask(run, entry, namespace))
      .catch((error: unknown) => this.unreadable(error))
      .then((state) => {
        if (state) entry.state = state;
        entry.asking = false;
        const keys = [...entry.waiters];
        entry.waiters.clear();
        this.underWay.delete(task);
        keys.forEach(this.wake);
      });
    this.underWay.add(task);
  }

  /** The run's jobs, or why there are none; undefined when the namespace's budget ran out on the way. */
  private async ask(
    run: LeaseRun,
    entry: RunEntry,
    namespace: string,
  ): Promise<RunJobs | UnknownRun | undefined> {
    const api = await this.connection.api();
    const fetchedAtMs = this.clock.now();
    if ('invalid' in api) {
      this.gate.failed({ reason: RunReason.CredentialInvalid, detail: api.invalid }, fetchedAtMs);
      return this.gate.closedAt(fetchedAtMs);
    }
    const jobs: WorkflowJob[] = [];
    let total = 0;
    for (let page = 1; page <= MAX_PAGES; page++) {
      if (!this.budget.take(namespace, this.clock.now())) return undefined;
      const known = entry.pages[page - 1];
      const answer = await api.attemptJobs(run, page, known?.etag);
      const now = this.clock.now();
      const data = this.pageOf(run, entry, { answer, known, namespace, now });
      if (!('jobs' in data)) return data;
      if (answer.kind === 'ok') entry.pages[page - 1] = { etag: answer.etag, data };
      jobs.push(...data.jobs);
      total = data.total_count;
      if (jobs.length >= total || data.jobs.length === 0) break;
    }
    entry.failuresInRow = 0;
    entry.pages.length = Math.ceil(jobs.length / 100) || 1;
    return {
      kind: 'jobs',
      jobs,
      complete: jobs.length >= total,
      fetchedAtMs,
      retryAtMs: this.clock.now() + this.settings.pollIntervalMs,
    };
  }

  /** One page from an answer, or what the answer says instead; the gate and the holds learn from it. */
  private pageOf(
    run: LeaseRun,
    entry: RunEntry,
    got: {
      answer: GitHubAnswer<JobsPage>;
      known?: { data: JobsPage };
      namespace: string;
      now: number;
    },
  ): JobsPage | UnknownRun {
    const { answer, now } = got;
    switch (answer.kind) {
      case 'api':
        this.gate.failed(answer, now);
        if (answer.reason === RunReason.CredentialRejected) this.connection.forget();
        return this.gate.closedAt(now)!;
      case 'repository':
        this.gate.answered(now);
        return this.holdRepository(run, answer, now);
      case 'run':
        if (answer.outage) this.gate.runFailed(runKey(run), got.namespace, answer.detail, now);
        else this.gate.answered(now);
        return this.holdRun(run, entry, answer, now);
      default:
        break;
    }
    this.gate.answered(now, answer.rateLimitedUntilMs);
    this.repositories.delete(repositoryKey(run));
    const page = answer.kind === 'ok' ? answer.data : got.known?.data;
    if (page && Array.isArray(page.jobs)) return page;
    return this.holdRun(
      run,
      entry,
      { kind: 'run', reason: RunReason.RequestRejected, detail: 'no list of jobs', outage: false },
      now,
    );
  }

  private holdRun(run: LeaseRun, entry: RunEntry, failure: RunFailure, now: number): UnknownRun {
    entry.failuresInRow += 1;
    entry.pages = [];
    const wait = Math.max(
      this.settings.pollIntervalMs,
      backoffDelay(this.settings.backoff, entry.failuresInRow),
    );
    return runHeldBack(run, failure, Math.max(failure.untilMs ?? 0, now + wait));
  }

  private holdRepository(run: LeaseRun, failure: RepositoryFailure, now: number): UnknownRun {
    const key = repositoryKey(run);
    const failuresInRow = (this.repositories.get(key)?.failuresInRow ?? 0) + 1;
    const wait = Math.max(
      this.settings.pollIntervalMs,
      backoffDelay(this.settings.backoff, failuresInRow),
    );
    const held = repositoryHeldBack(run, failure, now + wait);
    this.repositories.set(key, { failuresInRow, held });
    return held;
  }

  /** Reading the credentials Secret failed (the API server, not GitHub): every request waits. */
  private unreadable(error: unknown): UnknownRun | undefined {
    const now = this.clock.now();
    this.gate.failed(
      {
        reason: RunReason.CredentialInvalid,
        detail: `the credentials Secret could not be read: ${(error as Error).message}`,
      },
      now,
    );
    return this.gate.closedAt(now);
  }

  /** Runs no lease asked about for ten intervals are forgotten (their leases are gone). */
  private forgetUnused(now: number): void {
    const unused = 10 * this.settings.pollIntervalMs;
    for (const [key, entry] of this.runs)
      if (!entry.asking && now - entry.usedAtMs > unused) this.runs.delete(key);
    for (const [key, entry] of this.repositories)
      if (now - entry.held.retryAtMs > unused) this.repositories.delete(key);
    this.budget.forgetEnded(now);
  }
}

const repositoryKey = (run: LeaseRun): string => `${run.owner}/${run.repo}`.toLowerCase();
