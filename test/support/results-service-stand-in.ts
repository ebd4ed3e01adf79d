import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalHttpsServer } from './local-https-server.js';

/** One artifact as the service holds it, with the blob uploaded for it. */
export interface StandInArtifact {
  id: number;
  name: string;
  runBackendId: string;
  jobBackendId: string;
  /** CreateArtifact's expires_at (RFC 3339), when the client asked for a retention. */
  expiresAt?: string;
  mimeType?: string;
  /** The committed blob (Put Block List or Put Blob), once there is one. */
  blob?: Buffer;
  finalized: boolean;
  /** What FinalizeArtifact reported: size in bytes and `sha256:<hex>`. */
  size?: number;
  hash?: string;
}

/** One request that reached the stand-in (never its credentials), and what it answered. */
export interface ResultsRequest {
  method: string;
  /** The path without the query, which carries the upload URL's signature. */
  path: string;
  status: number;
}

/** What every request gets while set, instead of the service's answer. */
export type ResultsFailure =
  /** A Twirp error: its HTTP status and `{ code, msg }` body. */
  | { kind: 'status'; status: number; code: string; msg: string }
  /** The connection is cut before any answer. */
  | { kind: 'drop' }
  /** No answer at all until the stand-in stops. */
  | { kind: 'hang' };

/** A runtime token and the backend ids it carries. */
export interface RuntimeToken {
  token: string;
  runBackendId: string;
  jobBackendId: string;
}

const SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService/';
const BLOB_PATH = /^\/actions-results\/([0-9a-f-]+)\/([0-9a-f-]+)\/artifacts\/([0-9a-f]+)\.zip$/;
/** Requests bigger than this are refused: the diagnostics are well below a mebibyte. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * An HTTPS server on loopback standing in for GitHub Actions' results service, as
 * @actions/artifact 6 talks to it: the Twirp JSON API (CreateArtifact, FinalizeArtifact; the Twirp
 * wire protocol, the Twirp protocol specification, version 7) at ACTIONS_RESULTS_URL, and the Azure Blob
 * Storage upload URL it signs (Put Block, Put Block List, Put Blob of the Blob service REST API).
 * The runtime token is a JWT of its own signing, with the `scp` claim the runner's carries.
 */
export class ResultsServiceStandIn {
  readonly requests: ResultsRequest[] = [];
  readonly artifacts: StandInArtifact[] = [];
  /** While set, every request gets this instead (a test's switch). */
  failure: ResultsFailure | undefined;
  private server!: LocalHttpsServer;
  private readonly key = randomBytes(32);
  private readonly hanging = new Set<ServerResponse>();
  /** Upload URL path → its signature, and the blocks staged but not yet committed. */
  private readonly uploads = new Map<
    string,
    { sig: string; artifact: StandInArtifact; blocks: Map<string, Buffer> }
  >();
  private nextId = 1000;

  static async start(): Promise<ResultsServiceStandIn> {
    const standIn = new ResultsServiceStandIn();
    standIn.server = await LocalHttpsServer.start((req, res) => void standIn.answer(req, res));
    return standIn;
  }

  /** ACTIONS_RESULTS_URL, as the runner gives it (with a trailing slash). */
  get url(): string {
    return `${this.server.url}/`;
  }

  /** What the runner's TLS trusts (NODE_EXTRA_CA_CERTS). */
  get ca(): string {
    return this.server.ca;
  }

  /** The finalized artifact of `name`, if any. */
  finalized(name: string): StandInArtifact | undefined {
    return this.artifacts.find((artifact) => artifact.name === name && artifact.finalized);
  }

  /**
   * ACTIONS_RUNTIME_TOKEN for one job: the library reads the backend ids from the `scp` claim's
   * `Actions.Results:<run>:<job>` scope (@actions/artifact's internal/shared/util.ts).
   */
  runtimeToken(): RuntimeToken {
    const runBackendId = randomUUID();
    const jobBackendId = randomUUID();
    const encode = (value: object): string =>
      Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const unsigned = `${encode({ typ: 'JWT', alg: 'HS256' })}.${encode({
      scp: `Actions.ExampleScope Actions.Results:${runBackendId}:${jobBackendId}`,
      iat: now,
      exp: now + 3600,
    })}`;
    return { token: `${unsigned}.${this.sign(unsigned)}`, runBackendId, jobBackendId };
  }

  stop(): Promise<void> {
    for (const response of this.hanging) response.socket?.destroy();
    return this.server.stop();
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const record = (status: number): void => {
      this.requests.push({ method: request.method ?? '', path: url.pathname, status });
    };
    const failure = this.failure;
    if (failure?.kind === 'drop') {
      record(0);
      request.socket.destroy();
      return;
    }
    if (failure?.kind === 'hang') {
      record(0);
      this.hanging.add(response);
      return;
    }
    const body = await readBody(request);
    if (!body) {
      record(413);
      response.writeHead(413).end();
      return;
    }
    if (failure?.kind === 'status') {
      twirpError(response, record, failure.status, failure.code, failure.msg);
      return;
    }
    if (url.pathname.startsWith('/twirp/')) this.twirp(request, url, body, response, record);
    else this.blob(request, url, body, response, record);
  }

  /**
   * Twirp: only POST with a JSON or protobuf body reaches a method, anything else is bad_route
   * (404); errors are `{ code, msg }` with the code's HTTP status (the Twirp protocol specification, version 7).
   */
  private twirp(
    request: IncomingMessage,
    url: URL,
    body: Buffer,
    response: ServerResponse,
    record: (status: number) => void,
  ): void {
    const method = url.pathname.startsWith(SERVICE) ? url.pathname.slice(SERVICE.length) : '';
    if (
      request.method !== 'POST' ||
      request.headers['content-type'] !== 'application/json' ||
      !['CreateArtifact', 'FinalizeArtifact'].includes(method)
    )
      return twirpError(response, record, 404, 'bad_route', `no handler for ${url.pathname}`);
    const claims = this.verify(request.headers.authorization);
    if (!claims)
      return twirpError(response, record, 401, 'unauthenticated', 'invalid runtime token');
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body.toString()) as Record<string, unknown>;
    } catch {
      return twirpError(response, record, 400, 'malformed', 'the body is not JSON');
    }
    // The token's scope names the one run and job it may write artifacts for.
    const scope = `Actions.Results:${String(input.workflow_run_backend_id)}:${String(input.workflow_job_run_backend_id)}`;
    if (!claims.split(' ').includes(scope))
      return twirpError(response, record, 403, 'permission_denied', 'not the token’s run or job');
    const answer =
      method === 'CreateArtifact' ? this.createArtifact(input) : this.finalizeArtifact(input);
    if (answer instanceof TwirpFailure)
      return twirpError(response, record, answer.status, answer.code, answer.msg);
    record(200);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  }

  /** The `scp` claim of a runtime token this stand-in signed and that has not expired. */
  private verify(authorization: string | undefined): string | undefined {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    const [header, payload, signature] = token?.split('.') ?? [];
    if (!header || !payload || !signature) return undefined;
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      scp?: string;
      exp?: number;
    };
    if (!claims.exp || claims.exp * 1000 < Date.now()) return undefined;
    return claims.scp;
  }

  /**
   * One name per workflow run: a second CreateArtifact of it is 409 already_exists (the v4
   * artifacts' rule, actions/upload-artifact README "Breaking Changes"). The answer is a blob URL
   * signed for writing that one blob (an Azure service SAS: sig, se, sp, sr=b, sv).
   */
  private createArtifact(input: Record<string, unknown>): Record<string, unknown> | TwirpFailure {
    const name = typeof input.name === 'string' ? input.name : '';
    if (!name) return new TwirpFailure(400, 'invalid_argument', 'name is required');
    const runBackendId = String(input.workflow_run_backend_id);
    if (this.artifacts.some((a) => a.name === name && a.runBackendId === runBackendId))
      return new TwirpFailure(
        409,
        'already_exists',
        'an artifact with this name already exists on the workflow run',
      );
    const artifact: StandInArtifact = {
      id: (this.nextId += 1),
      name,
      runBackendId,
      jobBackendId: String(input.workflow_job_run_backend_id),
      expiresAt: typeof input.expires_at === 'string' ? input.expires_at : undefined,
      // A StringValue wrapper is the bare string in protobuf's JSON mapping.
      mimeType: typeof input.mime_type === 'string' ? input.mime_type : undefined,
      finalized: false,
    };
    this.artifacts.push(artifact);
    const blobPath = `/actions-results/${runBackendId}/${artifact.jobBackendId}/artifacts/${createHash('sha256').update(name).digest('hex')}.zip`;
    const sig = randomBytes(32).toString('base64');
    this.uploads.set(blobPath, { sig, artifact, blocks: new Map() });
    const expiry = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const query = new URLSearchParams({ sv: '2023-11-03', sr: 'b', sp: 'cw', se: expiry, sig });
    return { ok: true, signed_upload_url: `${this.server.url}${blobPath}?${query.toString()}` };
  }

  /** Finalizes an artifact of this run that was created and whose blob was committed. */
  private finalizeArtifact(input: Record<string, unknown>): Record<string, unknown> | TwirpFailure {
    const artifact = this.artifacts.find(
      (a) =>
        a.name === input.name &&
        a.runBackendId === String(input.workflow_run_backend_id) &&
        !a.finalized,
    );
    if (!artifact?.blob)
      return new TwirpFailure(404, 'not_found', 'no artifact of this name awaits finalizing');
    artifact.finalized = true;
    artifact.size = Number(input.size);
    artifact.hash = typeof input.hash === 'string' ? input.hash : undefined;
    // int64 is a string in protobuf's JSON mapping.
    return { ok: true, artifact_id: String(artifact.id) };
  }

  /**
   * Azure Blob Storage for the signed URL: Put Block (comp=block&blockid=), Put Block List
   * (comp=blocklist, an XML list of Latest/Committed/Uncommitted ids) and Put Blob
   * (x-ms-blob-type: BlockBlob), all 201 Created; a wrong or expired signature is 403
   * AuthenticationFailed, errors an XML body with x-ms-error-code.
   */
  private blob(
    request: IncomingMessage,
    url: URL,
    body: Buffer,
    response: ServerResponse,
    record: (status: number) => void,
  ): void {
    const upload = BLOB_PATH.test(url.pathname) ? this.uploads.get(url.pathname) : undefined;
    const fail = (status: number, code: string, message: string): void =>
      blobError(response, record, status, code, message);
    if (!upload) return fail(404, 'BlobNotFound', 'The specified blob does not exist.');
    const query = url.searchParams;
    if (
      query.get('sig') !== upload.sig ||
      Date.parse(query.get('se') ?? '') < Date.now() ||
      !query.get('sp')?.includes('w')
    )
      return fail(403, 'AuthenticationFailed', 'Server failed to authenticate the request.');
    if (request.method !== 'PUT')
      return fail(405, 'UnsupportedHttpVerb', 'The resource does not support this verb.');
    const refused = write(upload, query, request.headers['x-ms-blob-type'], body);
    if (refused) return fail(...refused);
    record(201);
    response.writeHead(201, {
      etag: `"0x${randomBytes(8).toString('hex').toUpperCase()}"`,
      'last-modified': new Date().toUTCString(),
      'x-ms-request-id': randomUUID(),
      'x-ms-version': '2023-11-03',
      'x-ms-request-server-encrypted': 'true',
      'content-length': '0',
    });
    response.end();
  }
}

/** Stages or commits what a PUT carries; the Blob service's error (status, code, message) if refused. */
function write(
  upload: { artifact: StandInArtifact; blocks: Map<string, Buffer> },
  query: URLSearchParams,
  blobType: string | string[] | undefined,
  body: Buffer,
): [number, string, string] | undefined {
  const comp = query.get('comp');
  if (comp === 'block') {
    const id = query.get('blockid') ?? '';
    // Ids are base64 of at most 64 bytes, all of one length within a blob.
    const sameLength = [...upload.blocks.keys()].every((other) => other.length === id.length);
    if (!id || Buffer.from(id, 'base64').length > 64 || !sameLength)
      return [400, 'InvalidBlockId', 'The specified block ID is invalid.'];
    upload.blocks.set(id, body);
  } else if (comp === 'blocklist') {
    const ids = [...body.toString().matchAll(/<(Latest|Committed|Uncommitted)>([^<]*)<\/\1>/g)];
    const blocks = ids.map((match) => upload.blocks.get(match[2]!));
    if (blocks.some((block) => !block))
      return [400, 'InvalidBlockList', 'The specified block list is invalid.'];
    upload.artifact.blob = Buffer.concat(blocks as Buffer[]);
    upload.blocks.clear();
  } else if (!comp && blobType === 'BlockBlob') {
    upload.artifact.blob = body;
  } else {
    return [400, 'MissingRequiredHeader', 'An HTTP header that is mandatory is missing.'];
  }
  return undefined;
}

/** A Twirp error a method answers. */
class TwirpFailure {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly msg: string,
  ) {}
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function twirpError(
  response: ServerResponse,
  record: (status: number) => void,
  status: number,
  code: string,
  msg: string,
): void {
  record(status);
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ code, msg }));
}

function blobError(
  response: ServerResponse,
  record: (status: number) => void,
  status: number,
  code: string,
  message: string,
): void {
  record(status);
  response.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code });
  response.end(
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}
