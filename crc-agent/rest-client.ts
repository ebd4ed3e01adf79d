import http from 'node:http';
import type { Duplex } from 'node:stream';
// One error type for every Kubernetes API the product talks to, the operator's client's too.
import { ApiError } from '../client/kube/api-error.js';

export { isAlreadyExists, isNotFound } from '../client/kube/api-error.js';

/** Opens one connection (already TLS where needed) to the API server. */
export type ConnectionFactory = () => Promise<Duplex>;

export interface RestResponse {
  status: number;
  body: string;
}

export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

/**
 * A minimal JSON REST client for the few calls the agent makes to the guest API. Every request
 * gets a fresh connection from the factory, so the tunnel decides where the bytes go.
 */
export class RestClient {
  constructor(
    private readonly connect: ConnectionFactory,
    private readonly host: string,
  ) {}

  request(request: RestRequest): Promise<RestResponse> {
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          method: request.method,
          path: request.path,
          headers: {
            host: this.host,
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : {
                  'content-type': request.contentType ?? 'application/json',
                  'content-length': Buffer.byteLength(payload),
                }),
          },
          ...(request.signal ? { signal: request.signal } : {}),
          createConnection: (_options, onCreate) => {
            this.connect().then(
              (socket) => onCreate(null, socket),
              (error: unknown) =>
                onCreate(
                  error instanceof Error ? error : new Error(String(error)),
                  undefined as never,
                ),
            );
            return undefined;
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Sends the request and returns the parsed JSON body; a non-2xx answer throws an ApiError. */
  async json<T>(request: RestRequest): Promise<T> {
    const response = await this.request(request);
    if (response.status < 200 || response.status >= 300) throw apiError(request, response);
    return (response.body ? JSON.parse(response.body) : {}) as T;
  }
}

function apiError(request: RestRequest, response: RestResponse): ApiError {
  let reason = '';
  let message = response.body.slice(0, 500);
  try {
    const status = JSON.parse(response.body) as { reason?: string; message?: string };
    reason = status.reason ?? '';
    message = status.message ?? message;
  } catch {
    // Not a Status object; keep the start of the body.
  }
  const path = request.path.split('?')[0] ?? '';
  return new ApiError(
    response.status,
    reason,
    `${request.method} ${path}: ${response.status} ${message}`.trim(),
    request.method,
    path,
  );
}
