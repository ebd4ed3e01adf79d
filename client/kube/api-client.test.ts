import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { ApiClient } from './api-client.js';
import { ApiError } from './api-error.js';
import { resourceType } from './resource-type.js';

const REVIEWS = resourceType('authentication.k8s.io/v1', 'TokenReview', 'tokenreviews', false);
const review = { apiVersion: REVIEWS.apiVersion, kind: REVIEWS.kind, metadata: {}, spec: {} };

/** A plain HTTP apiserver stand-in that answers every request with `answer`, once told to. */
async function standIn(answer: (response: http.ServerResponse) => void): Promise<{
  client: (options: ConstructorParameters<typeof ApiClient>[1]) => ApiClient;
  requests: () => number;
  connections: () => number;
  hold: () => void;
  /** Resolves once `count` requests have arrived. */
  arrived: (count: number) => Promise<void>;
  release: () => void;
  close: () => Promise<void>;
}> {
  let requests = 0;
  let connections = 0;
  let holding = false;
  const held: http.ServerResponse[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((_request, response) => {
    requests++;
    waiting.filter((w) => w.count <= requests).forEach((w) => w.resolve());
    if (holding) held.push(response);
    else answer(response);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: ApiClient[] = [];
  return {
    client: (options) => {
      const client = new ApiClient(
        { getCurrentCluster: () => ({ server: url }), applyToHTTPSOptions: async () => {} },
        options,
      );
      clients.push(client);
      return client;
    },
    requests: () => requests,
    connections: () => connections,
    hold: () => (holding = true),
    arrived: (count) =>
      new Promise<void>((resolve) =>
        requests >= count ? resolve() : waiting.push({ count, resolve }),
      ),
    release: () => {
      holding = false;
      held.splice(0).forEach(answer);
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('ApiClient options', () => {
  it('with maxThrottledAttempts 1, gives a 429 back at once instead of waiting it out', async () => {
    const apiserver = await standIn((response) =>
      response.writeHead(429, { 'retry-after': '10' }).end('{"reason":"TooManyRequests"}'),
    );
    closers.push(apiserver.close);
    const client = apiserver.client({ maxThrottledAttempts: 1 });
    const error: unknown = await client.create(REVIEWS, review).catch((e: unknown) => e);
    expect(error instanceof ApiError && error.status).toBe(429);
    expect(apiserver.requests()).toBe(1);
  });

  it('opens no more connections than its cap, however many requests are under way', async () => {
    const apiserver = await standIn((response) => response.writeHead(201).end('{}'));
    closers.push(apiserver.close);
    const client = apiserver.client({ allowH2: false, connections: 2 });
    apiserver.hold();
    // All eight are sent at once; without the cap each would open a connection of its own.
    const created = Array.from({ length: 8 }, () => client.create(REVIEWS, review));
    await apiserver.arrived(2);
    apiserver.release();
    await Promise.all(created);
    expect({ requests: apiserver.requests(), connections: apiserver.connections() }).toEqual({
      requests: 8,
      connections: 2,
    });
  });
});
