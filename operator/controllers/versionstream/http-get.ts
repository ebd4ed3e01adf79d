import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent, fetch } from 'undici';

/** What a GET came back with: a body, or why there is none (the caller keeps its last answer). */
export type GetAnswer =
  | { kind: 'ok'; text: string }
  | { kind: 'not-found'; message: string }
  | { kind: 'failed'; message: string };

/** How the operator reaches the update service and the CRC mirror: the admin's URLs only. */
export interface HttpGetter {
  get(url: string, accept: string): Promise<GetAnswer>;
}

/** The most a graph or listing may hold; the full stable graph is a few MB. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * GETs with a timeout, honouring HTTPS_PROXY, HTTP_PROXY and NO_PROXY as the operator's other
 * outbound requests do. Only http(s) URLs, built from the operator's configuration (never from a
 * tenant's object), reach it.
 */
export function httpGetter(
  timeoutMs: number,
  dispatcher: Dispatcher = new EnvHttpProxyAgent(),
): HttpGetter {
  return {
    async get(url, accept) {
      if (!/^https?:\/\//.test(url))
        return { kind: 'failed', message: `${url} is not an http(s) URL` };
      try {
        const response = await fetch(url, {
          headers: { accept, 'user-agent': 'guestcluster-operator' },
          signal: AbortSignal.timeout(timeoutMs),
          dispatcher,
        });
        if (response.status === 404) {
          await response.body?.cancel();
          return { kind: 'not-found', message: `${url} answered 404 Not Found` };
        }
        if (!response.ok) {
          await response.body?.cancel();
          return {
            kind: 'failed',
            message: `${url} answered ${response.status} ${response.statusText}`.trim(),
          };
        }
        const length = Number(response.headers.get('content-length') ?? 0);
        if (length > MAX_BODY_BYTES) {
          await response.body?.cancel();
          return {
            kind: 'failed',
            message: `${url} sent ${length} bytes, more than the ${MAX_BODY_BYTES} allowed`,
          };
        }
        return { kind: 'ok', text: await response.text() };
      } catch (error) {
        return {
          kind: 'failed',
          message: `${url} could not be read: ${describe(error, timeoutMs)}`,
        };
      }
    },
  };
}

/** A fetch failure in words; errors may come from another realm (a DOMException), so by shape. */
function describe(error: unknown, timeoutMs: number): string {
  const { name, message, cause } = (error ?? {}) as {
    name?: string;
    message?: string;
    cause?: unknown;
  };
  if (name === 'TimeoutError') return `no answer within ${timeoutMs / 1000}s`;
  const detail = (cause as { message?: string } | undefined)?.message;
  const text = message ?? String(error);
  return detail ? `${text} (${detail})` : text;
}
