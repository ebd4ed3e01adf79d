import { createHash, createPublicKey, verify } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalHttpsServer } from './local-https-server.js';

/** A workflow job in the REST API's shape ("Get a job for a workflow run"), the fields that matter here. */
export interface StandInJob {
  id: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'pending' | 'requested';
  conclusion: string | null;
}

/** One request that reached the stand-in, and what it answered. */
export interface StandInRequest {
  method: string;
  path: string;
  status: number;
  ifNoneMatch?: string;
  authorization?: string;
  /** The test clock's time when it arrived. */
  atMs: number;
}

/** What the next request to a run's jobs gets instead of the jobs. */
export type Failure =
  /** Any status with GitHub's error body (`message`), and headers such as Retry-After. */
  | { kind: 'status'; status: number; message?: string; retryAfterSeconds?: number }
  /** The connection is cut before any answer: GitHub unreachable. */
  | { kind: 'drop' }
  /** No answer at all: the request hangs until the client gives up (or the stand-in stops). */
  | { kind: 'hang' }
  /** 301 to where a renamed or transferred repository's runs now are (`location`, any host). */
  | { kind: 'moved'; location: string }
  /** 403 with X-GitHub-SSO, as an organisation enforcing SAML SSO answers an unauthorised token. */
  | { kind: 'sso' }
  /** Primary rate limit: 403 with x-ratelimit-remaining 0 until x-ratelimit-reset. */
  | { kind: 'primary-rate-limit'; resetInMs: number }
  /** Secondary rate limit: 429 with Retry-After. */
  | { kind: 'secondary-rate-limit'; retryAfterSeconds: number };

/** One request, its response, and how to record what it got. */
interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  record: (status: number) => void;
  url: URL;
}

const JOBS_PATH = /^\/repos\/([^/]+)\/([^/]+)\/actions\/runs\/(\d+)\/attempts\/(\d+)\/jobs$/;
const TOKEN_PATH = /^\/app\/installations\/(\d+)\/access_tokens$/;
const RATE_LIMIT = 5000;

/**
 * An HTTPS server on loopback standing in for the GitHub REST API, answering as GitHub documents
 * (docs.github.com/en/rest): the jobs of a run attempt ("List jobs for a workflow run attempt"),
 * installation tokens for an App ("Create an installation access token for an app"), with ETags,
 * 304s, rate-limit headers, rate limits, 5xx and 404. Every request is recorded with the test
 * clock's time, so a test can count them and tell when they came.
 */
export class GitHubStandIn {
  readonly requests: StandInRequest[] = [];
  private server!: LocalHttpsServer;
  private readonly runs = new Map<string, StandInJob[]>();
  private readonly failures = new Map<string, Failure[]>();
  private readonly repositoryFailures = new Map<string, Failure>();
  private readonly hanging = new Set<ServerResponse>();
  private readonly tokens = new Set<string>();
  private readonly apps = new Map<string, { publicKey: string; installationId: number }>();
  private readonly emitter = new EventEmitter();
  private remaining = RATE_LIMIT;
  private latencyMs = 0;
  private open = 0;
  private mostOpen = 0;

  private constructor(private readonly now: () => number) {}

  /** `hostname`: the name in the URL and certificate (a name only a proxy can reach, say). */
  static async start(now: () => number, hostname?: string): Promise<GitHubStandIn> {
    const standIn = new GitHubStandIn(now);
    standIn.server = await LocalHttpsServer.start(
      (req, res) => standIn.answer(req, res),
      {},
      hostname,
    );
    return standIn;
  }

  /** The loopback port it listens on (for a proxy that maps its name there). */
  get port(): number {
    return this.server.port;
  }

  /** Requests that hang now, unanswered. */
  get hangingRequests(): number {
    return this.hanging.size;
  }

  /** The most requests that were open at once (arrived, not yet answered) since the start. */
  get mostInFlight(): number {
    return this.mostOpen;
  }

  /**
   * Every answer to a run's jobs goes out `ms` of real time after the request arrived, as over a
   * network: requests the client sends at once are then open at once, and mostInFlight counts them.
   */
  answerAfter(ms: number): void {
    this.latencyMs = ms;
  }

  /** What the operator trusts (--github-ca-file). */
  get ca(): string {
    return this.server.ca;
  }

  /** The API root, as --github-api-url takes it (a GitHub Enterprise Server's is https://HOST/api/v3). */
  get url(): string {
    return this.server.url;
  }

  stop(): Promise<void> {
    for (const response of this.hanging) response.socket?.destroy();
    return this.server.stop();
  }

  /** A personal access token or installation token the API accepts. */
  acceptToken(token: string): void {
    this.tokens.add(token);
  }

  /** A GitHub App whose JWTs (signed with the private key of `publicKey`) may mint tokens for its installation. */
  registerApp(appId: string, publicKey: string, installationId: number): void {
    this.apps.set(appId, { publicKey, installationId });
  }

  /** Sets the jobs of a run attempt (a run GitHub does not know answers 404). */
  setJobs(repository: string, runId: number, attempt: number, jobs: StandInJob[]): void {
    this.runs.set(`${repository}#${runId}#${attempt}`, jobs);
  }

  /** The next requests for a run's jobs get these, in order, before the jobs again. */
  failNext(repository: string, runId: number, ...failures: Failure[]): void {
    this.failures.set(`${repository}#${runId}`, failures);
  }

  /** Every request for a run of the repository gets `failure` from now on (undefined: none again). */
  failRepository(repository: string, failure: Failure | undefined): void {
    if (failure) this.repositoryFailures.set(repository, failure);
    else this.repositoryFailures.delete(repository);
  }

  /** The requests for any run of a repository. */
  repositoryRequests(repository: string): StandInRequest[] {
    return this.requests.filter((r) => r.path.startsWith(`/repos/${repository}/`));
  }

  /** The requests for one run's jobs. */
  jobRequests(repository: string, runId: number): StandInRequest[] {
    const prefix = `/repos/${repository}/actions/runs/${runId}/`;
    return this.requests.filter((r) => r.path.startsWith(prefix));
  }

  /**
   * Resolves once `count` requests for the run's jobs have been answered; rejects after
   * `timeoutMs` (default 60 s) of real time.
   */
  async requestsFor(
    repository: string,
    runId: number,
    count: number,
    timeoutMs = 60_000,
  ): Promise<StandInRequest[]> {
    await this.requestsUntil(() => this.jobRequests(repository, runId).length >= count, {
      timeoutMs,
      description: `${count} request(s) for the jobs of run ${runId} of ${repository}`,
    });
    return this.jobRequests(repository, runId);
  }

  /**
   * Resolves once `until` holds for the requests so far; rejects after `timeoutMs` of real time,
   * naming `description`.
   */
  async requestsUntil(
    until: (requests: readonly StandInRequest[]) => boolean,
    { timeoutMs, description }: { timeoutMs: number; description: string },
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!until(this.requests)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `Timed out after ${timeoutMs / 1000}s waiting for ${description} (${this.requests.length} requests)`,
        );
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.emitter.off('request', done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.emitter.once('request', done);
      });
    }
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.open += 1;
    this.mostOpen = Math.max(this.mostOpen, this.open);
    response.on('close', () => (this.open -= 1));
    const url = new URL(request.url ?? '/', 'https://localhost');
    const record = (status: number): void => {
      this.requests.push({
        method: request.method ?? '',
        path: url.pathname,
        status,
        ifNoneMatch: request.headers['if-none-match'],
        authorization: request.headers.authorization,
        atMs: this.now(),
      });
      this.emitter.emit('request');
    };
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const token = TOKEN_PATH.exec(url.pathname);
      if (request.method === 'POST' && token)
        return this.mintToken(request, response, Number(token[1]), record);
      const jobs = JOBS_PATH.exec(url.pathname);
      if (request.method !== 'GET' || !jobs) return this.send(response, record, 404, notFound());
      // "Bad credentials": any unknown token, as GitHub answers 401.
      const presented = /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!presented || !this.tokens.has(presented))
        return this.send(response, record, 401, {
          message: 'Bad credentials',
          documentation_url: 'https://docs.github.com/rest',
        });
      const [, owner, repo, runId, attempt] = jobs;
      const list = (): void =>
        this.listJobs(
          { request, response, record, url },
          `${owner}/${repo}`,
          Number(runId),
          Number(attempt),
        );
      if (this.latencyMs > 0) setTimeout(list, this.latencyMs);
      else list();
    });
  }

  private listJobs(
    { request, response, record, url }: Exchange,
    repository: string,
    runId: number,
    attempt: number,
  ): void {
    const failure =
      this.failures.get(`${repository}#${runId}`)?.shift() ??
      this.repositoryFailures.get(repository);
    if (failure) return this.fail(response, record, failure);
    const jobs = this.runs.get(`${repository}#${runId}#${attempt}`);
    // A run, or an attempt, the token cannot see or that does not exist: 404 Not Found.
    if (!jobs) return this.send(response, record, 404, notFound(), this.rateHeaders(true));
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const data = {
      total_count: jobs.length,
      jobs: jobs
        .slice((page - 1) * perPage, page * perPage)
        .map((job) => workflowJob(repository, runId, attempt, job)),
    };
    const text = JSON.stringify(data);
    const etag = `W/"${createHash('sha256').update(text).digest('hex').slice(0, 32)}"`;
    // Conditional requests: a matching If-None-Match gets 304 Not Modified, which does not count
    // against the rate limit ("Use conditional requests if appropriate", REST API best practices).
    if (request.headers['if-none-match'] === etag)
      return this.send(response, record, 304, undefined, { etag, ...this.rateHeaders(false) });
    this.send(response, record, 200, data, { etag, ...this.rateHeaders(true) });
  }

  private fail(response: ServerResponse, record: (status: number) => void, failure: Failure): void {
    switch (failure.kind) {
      case 'drop':
        record(0);
        response.socket?.destroy();
        return;
      case 'hang':
        // Counted as it arrives (no status: it never gets one); a client that gives up closes it.
        record(0);
        this.hanging.add(response);
        response.on('close', () => this.hanging.delete(response));
        return;
      case 'status':
        return this.send(
          response,
          record,
          failure.status,
          {
            message: failure.message ?? (failure.status >= 500 ? 'Server Error' : 'Error'),
            documentation_url: 'https://docs.github.com/rest',
          },
          {
            ...this.rateHeaders(failure.status < 500),
            ...(failure.retryAfterSeconds
              ? { 'retry-after': String(failure.retryAfterSeconds) }
              : {}),
          },
        );
      case 'moved':
        // A renamed repository: "301 Moved Permanently" with the new place (GitHub names the
        // repository by id); a client that follows it would carry the token there.
        return this.send(
          response,
          record,
          301,
          { message: 'Moved Permanently', url: failure.location },
          { location: failure.location, ...this.rateHeaders(true) },
        );
      case 'sso':
        // SAML enforcement: 403 with the SSO header and rate-limit headers with requests left.
        return this.send(
          response,
          record,
          403,
          {
            message:
              'Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.',
            documentation_url:
              'https://docs.github.com/articles/authenticating-to-a-github-organization-with-saml-single-sign-on/',
          },
          {
            'x-github-sso':
              'required; url=https://github.com/orgs/acme/sso?authorization_request=1',
            ...this.rateHeaders(true),
          },
        );
      case 'primary-rate-limit':
        // The primary limit: 403 (or 429) with x-ratelimit-remaining 0; wait until x-ratelimit-reset.
        return this.send(
          response,
          record,
          403,
          {
            message: 'API rate limit exceeded for installation ID 1.',
            documentation_url:
              'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api',
          },
          {
            'x-ratelimit-limit': String(RATE_LIMIT),
            'x-ratelimit-remaining': '0',
            'x-ratelimit-used': String(RATE_LIMIT),
            'x-ratelimit-reset': String(Math.ceil((this.now() + failure.resetInMs) / 1000)),
            'x-ratelimit-resource': 'core',
          },
        );
      case 'secondary-rate-limit':
        // A secondary limit: 429 (or 403) with Retry-After in seconds; remaining is not 0.
        return this.send(
          response,
          record,
          429,
          {
            message:
              'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          },
          { 'retry-after': String(failure.retryAfterSeconds), ...this.rateHeaders(false) },
        );
    }
  }

  /** POST /app/installations/{id}/access_tokens, authenticated with the App's JWT (RS256, iss = App id). */
  private mintToken(
    request: IncomingMessage,
    response: ServerResponse,
    installationId: number,
    record: (status: number) => void,
  ): void {
    const jwt = /^bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    const [header = '', payload = '', signature = ''] = jwt.split('.');
    const claims = parseJson(Buffer.from(payload, 'base64url').toString()) as {
      iss?: unknown;
      exp?: number;
    };
    const app = this.apps.get(String(claims?.iss));
    const signed =
      !!app &&
      verify(
        'RSA-SHA256',
        Buffer.from(`${header}.${payload}`),
        createPublicKey(app.publicKey),
        Buffer.from(signature, 'base64url'),
      );
    // "A JSON web token could not be decoded" / expired JWTs answer 401.
    if (!app || !signed || !claims.exp || claims.exp * 1000 < Date.now())
      return this.send(response, record, 401, { message: 'A JSON web token could not be decoded' });
    if (app.installationId !== installationId) return this.send(response, record, 404, notFound());
    const token = `ghs_standin${this.tokens.size}${installationId}`;
    this.tokens.add(token);
    this.send(response, record, 201, {
      token,
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      permissions: { actions: 'read' },
      repository_selection: 'selected',
    });
  }

  /** x-ratelimit-* on every answer; a request that counts uses one of the hour's requests. */
  private rateHeaders(counts: boolean): Record<string, string> {
    if (counts) this.remaining = Math.max(0, this.remaining - 1);
    return {
      'x-ratelimit-limit': String(RATE_LIMIT),
      'x-ratelimit-remaining': String(this.remaining),
      'x-ratelimit-used': String(RATE_LIMIT - this.remaining),
      'x-ratelimit-reset': String(Math.ceil((this.now() + 3_600_000) / 1000)),
      'x-ratelimit-resource': 'core',
    };
  }

  private send(
    response: ServerResponse,
    record: (status: number) => void,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    response.writeHead(status, {
      ...headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    });
    response.end(body === undefined ? undefined : JSON.stringify(body));
    record(status);
  }
}

function notFound(): object {
  return { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A job as "List jobs for a workflow run attempt" returns it. */
function workflowJob(repository: string, runId: number, attempt: number, job: StandInJob): object {
  const started = job.status === 'queued' ? null : '2026-12-01T10:00:00Z';
  return {
    id: job.id,
    run_id: runId,
    run_attempt: attempt,
    run_url: `https://api.github.com/repos/${repository}/actions/runs/${runId}`,
    node_id: `CR_${job.id}`,
    head_sha: '0000000000000000000000000000000000000000',
    url: `https://api.github.com/repos/${repository}/actions/jobs/${job.id}`,
    html_url: `https://github.com/${repository}/actions/runs/${runId}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: '2026-12-01T09:59:00Z',
    started_at: started,
    completed_at: job.status === 'completed' ? '2026-12-01T10:10:00Z' : null,
    name: job.name,
    steps: [],
    check_run_url: `https://api.github.com/repos/${repository}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: 1,
    runner_name: 'GitHub Actions 1',
    runner_group_id: 1,
    runner_group_name: 'GitHub Actions',
    workflow_name: 'CI',
    head_branch: 'main',
  };
}
