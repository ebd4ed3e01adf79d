import { afterEach, describe, expect, it } from '@jest/globals';
import { fetch } from 'undici';
import type { EndpointOptions, Route } from './http-endpoints.js';
import { HttpEndpoints } from './http-endpoints.js';

const open: HttpEndpoints[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((endpoint) => endpoint.close()));
});

async function serve(
  route: Route,
  options: EndpointOptions = {},
): Promise<
  (path?: string) => Promise<{ status: number; body: string; retryAfter: string | null }>
> {
  const endpoint = await HttpEndpoints.listen(
    { host: '127.0.0.1', port: 0 },
    { '/x': route },
    options,
  );
  open.push(endpoint);
  return async (path = '/x') => {
    const response = await fetch(`http://127.0.0.1:${endpoint.port}${path}`);
    return {
      status: response.status,
      body: await response.text(),
      retryAfter: response.headers.get('retry-after'),
    };
  };
}

const ok: Route = () => Promise.resolve({ status: 200, body: 'ok\n' });

describe('HttpEndpoints', () => {
  it('answers a failed route or guard with 503 and a fixed text, never the error', async () => {
    const errors: unknown[] = [];
    const failing = await serve(() => Promise.reject(new Error('the apiserver said: no')), {
      onError: (error) => errors.push(error),
    });
    expect(await failing()).toEqual({
      status: 503,
      body: 'Service Unavailable\n',
      retryAfter: null,
    });
    const guarded = await serve(ok, {
      guard: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:6443')),
    });
    expect(await guarded()).toEqual({
      status: 503,
      body: 'Service Unavailable\n',
      retryAfter: null,
    });
    expect(errors).toHaveLength(1);
  });

  it("sends a guard's refusal with its headers, and the route only when the guard lets it through", async () => {
    let refuse = true;
    const get = await serve(ok, {
      guard: () =>
        Promise.resolve(
          refuse
            ? { status: 429, body: 'Too Many Requests\n', headers: { 'Retry-After': '1' } }
            : undefined,
        ),
    });
    expect(await get()).toEqual({ status: 429, body: 'Too Many Requests\n', retryAfter: '1' });
    refuse = false;
    expect(await get()).toEqual({ status: 200, body: 'ok\n', retryAfter: null });
    expect((await get('/other')).status).toBe(404);
  });
});
