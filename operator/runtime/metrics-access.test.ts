import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../../client/kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import type { Clock } from './clock.js';
import { MetricsAccess } from './metrics-access.js';

/** Time that moves only when the test says so; timers fire as it passes their due time. */
class ManualClock implements Clock {
  private time = Date.parse('2026-12-01T12:00:00Z');
  private readonly timers = new Map<NodeJS.Timeout, { due: number; callback: () => void }>();
  private next = 0;

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): NodeJS.Timeout {
    const timer = ++this.next as unknown as NodeJS.Timeout;
    this.timers.set(timer, { due: this.time + ms, callback });
    return timer;
  }

  clearTimeout(timer: NodeJS.Timeout): void {
    this.timers.delete(timer);
  }

  advance(ms: number): void {
    this.time += ms;
    for (const [timer, { due, callback }] of [...this.timers])
      if (due <= this.time) {
        this.timers.delete(timer);
        callback();
      }
  }
}

type Review = KubeObject & { spec: { token?: string; user?: string } };

/**
 * The apiserver's side of the reviews: which tokens belong to whom, who may get /metrics, and
 * every review asked for. `hold` keeps answers back until released (reviews in flight).
 */
class FakeReviews {
  readonly tokenReviews: string[] = [];
  readonly accessReviews: string[] = [];
  readonly users = new Map<string, { username: string; allowed: boolean }>();
  failure: Error | undefined;
  hold = false;
  stall = false;
  private readonly held: (() => void)[] = [];

  async create<T extends KubeObject>(
    type: ResourceType,
    object: T,
    options: { signal?: AbortSignal } = {},
  ): Promise<T> {
    const review = object as unknown as Review;
    if (type.plural === 'tokenreviews') this.tokenReviews.push(review.spec.token ?? '');
    else this.accessReviews.push(review.spec.user ?? '');
    if (this.stall)
      await new Promise((_, reject) =>
        options.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failure) throw this.failure;
    return { ...object, status: this.answer(type, review) };
  }

  release(): void {
    this.held.splice(0).forEach((resolve) => resolve());
  }

  private answer(type: ResourceType, review: Review): unknown {
    if (type.plural === 'tokenreviews') {
      const user = this.users.get(review.spec.token ?? '');
      return user ? { authenticated: true, user: { username: user.username } } : {};
    }
    const user = [...this.users.values()].find((u) => u.username === review.spec.user);
    return { allowed: user?.allowed ?? false };
  }
}

function world(): { access: MetricsAccess; reviews: FakeReviews; clock: ManualClock } {
  const reviews = new FakeReviews();
  reviews.users.set('scraper-token', { username: 'system:serviceaccount:mon:prom', allowed: true });
  reviews.users.set('tenant-token', {
    username: 'system:serviceaccount:ci:tenant',
    allowed: false,
  });
  const clock = new ManualClock();
  const access = new MetricsAccess(reviews, clock);
  return { access, reviews, clock };
}

const bearer = (token: string): string => `Bearer ${token}`;
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('MetricsAccess', () => {
  it('answers fixed texts only: 401 without a token or with a bad one, 403 without the role', async () => {
    const { access } = world();
    expect(await access.decide(undefined, '/metrics')).toEqual({
      allowed: false,
      status: 401,
      body: 'Unauthorized\n',
    });
    expect(await access.decide(bearer('not-a-token'), '/metrics')).toEqual({
      allowed: false,
      status: 401,
      body: 'Unauthorized\n',
    });
    // Not the user's name, nor the path: a stranger learns nothing from the answer.
    expect(await access.decide(bearer('tenant-token'), '/metrics')).toEqual({
      allowed: false,
      status: 403,
      body: 'Forbidden\n',
    });
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
  });

  it("answers 503 with a fixed text when the apiserver fails a review, never the apiserver's words", async () => {
    const { access, reviews } = world();
    reviews.failure = new ApiError(
      403,
      'Forbidden',
      'tokenreviews.authentication.k8s.io is forbidden: User "system:serviceaccount:op:op" cannot create',
    );
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({
      allowed: false,
      status: 503,
      body: 'Service Unavailable\n',
    });
    // Not remembered: the next scrape asks again.
    reviews.failure = undefined;
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
  });

  it('ends a review the apiserver does not answer at its deadline, with 503', async () => {
    const { access, reviews, clock } = world();
    reviews.stall = true;
    let decision: unknown;
    void access.decide(bearer('scraper-token'), '/metrics').then((d) => (decision = d));
    await flush();
    clock.advance(4_999);
    await flush();
    expect(decision).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(decision).toEqual({ allowed: false, status: 503, body: 'Service Unavailable\n' });
  });

  it('keeps the scraper allowed through a flood of refusals: allows and refusals are cached apart', async () => {
    const { access, reviews } = world();
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
    for (let i = 0; i < 300; i++) await access.decide(bearer(`random-${i}`), '/metrics');
    const before = reviews.tokenReviews.length;
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
    expect(reviews.tokenReviews.length).toBe(before);
  });

  it('refuses new tokens beyond 4 reviews in flight at once: 429 with Retry-After, no request', async () => {
    const { access, reviews } = world();
    reviews.hold = true;
    const decisions = Array.from({ length: 50 }, (_, i) =>
      access.decide(bearer(`random-${i}`), '/metrics'),
    );
    await flush();
    expect(reviews.tokenReviews).toHaveLength(4);
    reviews.release();
    const answers = await Promise.all(decisions);
    expect(answers.filter((a) => !a.allowed && a.status === 401)).toHaveLength(4);
    expect(answers.filter((a) => !a.allowed && a.status === 429)).toHaveLength(46);
    expect(answers.find((a) => !a.allowed && a.status === 429)).toEqual({
      allowed: false,
      status: 429,
      body: 'Too Many Requests\n',
      headers: { 'Retry-After': '1' },
    });
    expect(reviews.tokenReviews).toHaveLength(4);
  });

  it('reviews new tokens at 10 at once, then 5 a second (a token bucket on the clock)', async () => {
    const { access, reviews, clock } = world();
    const statuses = async (count: number, from: number): Promise<number[]> => {
      const answers = [];
      for (let i = from; i < from + count; i++)
        answers.push(await access.decide(bearer(`random-${i}`), '/metrics'));
      return answers.map((a) => (a.allowed ? 200 : a.status));
    };
    expect(await statuses(12, 0)).toEqual([...Array<number>(10).fill(401), 429, 429]);
    clock.advance(1000);
    expect(await statuses(6, 100)).toEqual([...Array<number>(5).fill(401), 429]);
    expect(reviews.tokenReviews).toHaveLength(15);
  });

  it('asks once for a token sent many times at once, and remembers a refusal for 10 s', async () => {
    const { access, reviews, clock } = world();
    reviews.hold = true;
    const decisions = Array.from({ length: 20 }, () =>
      access.decide(bearer('tenant-token'), '/metrics'),
    );
    await flush();
    reviews.hold = false;
    reviews.release();
    expect((await Promise.all(decisions)).map((a) => !a.allowed && a.status)).toEqual(
      Array(20).fill(403),
    );
    expect(reviews.tokenReviews).toHaveLength(1);
    clock.advance(9_999);
    await access.decide(bearer('tenant-token'), '/metrics');
    expect(reviews.tokenReviews).toHaveLength(1);
    clock.advance(1);
    await access.decide(bearer('tenant-token'), '/metrics');
    expect(reviews.tokenReviews).toHaveLength(2);
  });

  it('reviews a known scraper again after a minute on a lane of its own, while the flood is refused', async () => {
    const { access, reviews, clock } = world();
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
    clock.advance(60_000);
    // The flood has taken every token of the bucket.
    for (let i = 0; i < 20; i++) await access.decide(bearer(`random-${i}`), '/metrics');
    const flooded = await access.decide(bearer('random-last'), '/metrics');
    expect(!flooded.allowed && flooded.status).toBe(429);
    expect(await access.decide(bearer('scraper-token'), '/metrics')).toEqual({ allowed: true });
    expect(reviews.tokenReviews.filter((t) => t === 'scraper-token')).toHaveLength(2);
    // A token that is no longer accepted is refused at its next review.
    reviews.users.delete('scraper-token');
    clock.advance(60_000);
    const revoked = await access.decide(bearer('scraper-token'), '/metrics');
    expect(!revoked.allowed && revoked.status).toBe(401);
  });
});
