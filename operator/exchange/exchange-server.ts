import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CertificateAndKey } from '../kube/self-signed-certificate.js';
import type { ListenAddress } from '../runtime/http-endpoints.js';
import { ExchangeRefusal } from './exchange-refusal.js';
import type { ExchangeAnswer, ExchangeRequest } from '../../contracts/token-exchange.js';

/** The exchange's one path (docs/ci-identities.md#the-exchange). */
export const EXCHANGE_PATH = '/v1/token';
/** An ID token is a few KiB; anything larger is not one. */
const MAX_BODY_BYTES = 16 * 1024;
/** Exchanges answered at once; beyond, a request is refused rather than queued. */
const MAX_IN_FLIGHT = 32;
/** A client that has not sent its request by then is cut off. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface ExchangeHandler {
  /** False while this process may not issue (a standby, caches not synced). */
  ready: () => boolean;
  exchange: (request: ExchangeRequest) => Promise<ExchangeAnswer>;
  /** Told of an exchange that failed for another reason than a refusal; the client gets a 503. */
  onError: (error: unknown) => void;
}

function send(
  response: ServerResponse,
  status: number,
  body: object,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      ...headers,
    })
    .end(`${JSON.stringify(body)}\n`);
}

function refuse(response: ServerResponse, refusal: ExchangeRefusal): void {
  const headers: Record<string, string> =
    refusal.retryAfterSeconds !== undefined
      ? { 'Retry-After': String(refusal.retryAfterSeconds) }
      : {};
  send(response, refusal.status, { reason: refusal.reason, message: refusal.message }, headers);
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new ExchangeRefusal(
        'InvalidRequest',
        `The request is larger than ${MAX_BODY_BYTES} bytes`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const OPTIONAL_STRINGS = ['namespace', 'serviceAccount'] as const;

/** The request's JSON, checked field by field; errors name the field. */
export function parseExchangeRequest(text: string): ExchangeRequest {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ExchangeRefusal('InvalidRequest', 'The request body must be JSON');
  }
  if (!body || typeof body !== 'object' || typeof body.token !== 'string' || !body.token)
    throw new ExchangeRefusal('InvalidRequest', "The request must have a token: the CI's ID token");
  for (const field of OPTIONAL_STRINGS)
    if (body[field] !== undefined && typeof body[field] !== 'string')
      throw new ExchangeRefusal('InvalidRequest', `The request's ${field} must be a string`);
  const seconds = body.expirationSeconds;
  if (
    seconds !== undefined &&
    (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds <= 0)
  )
    throw new ExchangeRefusal(
      'InvalidRequest',
      "The request's expirationSeconds must be a positive integer",
    );
  return {
    token: body.token,
    namespace: body.namespace as string | undefined,
    serviceAccount: body.serviceAccount as string | undefined,
    expirationSeconds: seconds,
  };
}

/**
 * The token exchange's HTTPS server: POST /v1/token with a JSON body, answered in JSON. At most
 * a few exchanges at once; refusals name their reason and never quote the request.
 */
export class ExchangeServer {
  private inFlight = 0;

  private constructor(private readonly server: https.Server) {}

  static async listen(
    address: ListenAddress,
    tls: CertificateAndKey,
    handler: ExchangeHandler,
  ): Promise<ExchangeServer> {
    const holder: { server?: ExchangeServer } = {};
    const server = https.createServer(
      { cert: tls.certificatePem, key: tls.keyPem, requestTimeout: REQUEST_TIMEOUT_MS },
      (request, response) => void holder.server!.handle(request, response, handler),
    );
    holder.server = new ExchangeServer(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(address.port, address.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return holder.server;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  setCertificate(tls: CertificateAndKey): void {
    this.server.setSecureContext({ cert: tls.certificatePem, key: tls.keyPem });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(
    request: IncomingMessage,
    response: ServerResponse,
    handler: ExchangeHandler,
  ): Promise<void> {
    const [path] = (request.url ?? '/').split('?');
    if (path !== EXCHANGE_PATH)
      return send(response, 404, {
        reason: 'NotFound',
        message: `Only POST ${EXCHANGE_PATH} is served`,
      });
    if (request.method !== 'POST')
      return send(
        response,
        405,
        { reason: 'MethodNotAllowed', message: `Use POST ${EXCHANGE_PATH}` },
        { Allow: 'POST' },
      );
    if (!handler.ready())
      return refuse(
        response,
        new ExchangeRefusal(
          'Unavailable',
          'This operator is not serving exchanges (a standby, or starting)',
          1,
        ),
      );
    if (this.inFlight >= MAX_IN_FLIGHT)
      return refuse(response, new ExchangeRefusal('RateLimited', 'Too many exchanges at once', 1));
    this.inFlight += 1;
    try {
      const answer = await handler.exchange(parseExchangeRequest(await readBody(request)));
      send(response, 200, answer);
    } catch (error) {
      if (error instanceof ExchangeRefusal) return refuse(response, error);
      handler.onError(error);
      refuse(response, new ExchangeRefusal('Unavailable', 'The exchange failed; try again', 1));
    } finally {
      this.inFlight -= 1;
    }
  }
}
