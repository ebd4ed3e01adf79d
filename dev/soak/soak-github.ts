import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { createServingPki } from '../control-plane/pki.js';

/** How the stand-in misbehaves while broken (docs/soak.md#faults). */
export type GitHubOutage = 'server-error' | 'drop' | 'hang';
export const GITHUB_OUTAGES: readonly GitHubOutage[] = ['server-error', 'drop', 'hang'];

/** The one repository the soak's leases name, and the token the operator is given for it. */
export const SOAK_REPOSITORY = 'soak/ci';
const JOBS_PATH = /^\/repos\/([^/]+\/[^/]+)\/actions\/runs\/(\d+)\/attempts\/(\d+)\/jobs$/;

/**
 * The GitHub REST API as the operator's reclaim asks it, for the soak's leases only: "List jobs for
 * a workflow run attempt" (one job per run, in progress until the soak completes it), with the
 * token the credentials Secret holds. While broken it answers 500, cuts connections or never
 * answers, as GitHub does in an outage.
 */
export class SoakGitHub {
  readonly ca: string;
  requests = 0;
  private readonly completed = new Set<number>();
  private readonly running = new Set<number>();
  private readonly sockets = new Set<Socket>();
  private readonly hung = new Set<ServerResponse>();
  private outage: GitHubOutage | undefined;
  private readonly server: https.Server;

  private constructor(readonly token: string) {
    const pki = createServingPki('soak-github');
    this.ca = pki.ca.certificatePem;
    this.server = https.createServer(
      { cert: pki.server.certificatePem + pki.ca.certificatePem, key: pki.server.keyPem },
      (request, response) => this.answer(request, response),
    );
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  static async start(token: string): Promise<SoakGitHub> {
    const github = new SoakGitHub(token);
    await new Promise<void>((resolve) => github.server.listen(0, '127.0.0.1', resolve));
    return github;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A run whose one job is in progress. */
  startRun(runId: number): void {
    this.running.add(runId);
  }

  /** The run's job completed (successfully). */
  completeRun(runId: number): void {
    this.running.delete(runId);
    this.completed.add(runId);
  }

  /** Breaks the API (or mends it with undefined); a break also cuts the connections open now. */
  breakWith(outage: GitHubOutage | undefined): void {
    this.outage = outage;
    if (outage === 'drop') for (const socket of this.sockets) socket.destroy();
    if (!outage) this.cutHung();
  }

  private cutHung(): void {
    for (const response of this.hung) response.socket?.destroy();
    this.hung.clear();
  }

  async stop(): Promise<void> {
    this.cutHung();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.requests++;
    request.resume();
    if (this.outage === 'drop') return void request.socket.destroy();
    // Never answered; cut when the API is mended or stopped, or when the operator gives up.
    if (this.outage === 'hang') return void this.hung.add(response);
    if (this.outage === 'server-error') return send(response, 500, { message: 'Server Error' });
    const presented = /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (presented !== this.token) return send(response, 401, { message: 'Bad credentials' });
    const runId = this.runOf(request.url ?? '/');
    if (runId === undefined) return send(response, 404, { message: 'Not Found' });
    const done = this.completed.has(runId);
    send(response, 200, {
      total_count: 1,
      jobs: [
        {
          id: runId,
          run_id: runId,
          run_attempt: 1,
          name: 'test',
          status: done ? 'completed' : 'in_progress',
          conclusion: done ? 'success' : null,
        },
      ],
    });
  }

  /** The run whose first attempt's jobs are asked for, when the stand-in knows it. */
  private runOf(url: string): number | undefined {
    const match = JOBS_PATH.exec(new URL(url, this.url).pathname);
    if (!match || match[1] !== SOAK_REPOSITORY || match[3] !== '1') return undefined;
    const runId = Number(match[2]);
    return this.running.has(runId) || this.completed.has(runId) ? runId : undefined;
  }
}

function send(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
