import { createHash } from 'node:crypto';
import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import { LruMap } from './lru-map.js';
import { ReviewLane } from './review-lane.js';
import { TokenBucket } from './token-bucket.js';

const TOKEN_REVIEWS = resourceType(
  'authentication.k8s.io/v1',
  'TokenReview',
  'tokenreviews',
  false,
);
const SUBJECT_ACCESS_REVIEWS = resourceType(
  'authorization.k8s.io/v1',
  'SubjectAccessReview',
  'subjectaccessreviews',
  false,
);

/**
 * What reviews may cost, and how long their answers last. Why these numbers keep the operator's
 * own API traffic safe: docs/monitoring.md#what-a-scrape-costs.
 */
export interface MetricsAccessLimits {
  /** Tokens allowed, remembered (fresh or due for a new review): the known readers. */
  allowedEntries: number;
  allowedTtlMs: number;
  /** Tokens refused (401, 403), remembered apart: a flood of them never evicts a reader. */
  refusedEntries: number;
  refusedTtlMs: number;
  /** Reviews of tokens not known as readers: at most this many at once, and a token bucket. */
  newcomerReviewsInFlight: number;
  reviewBurst: number;
  reviewsPerSecond: number;
  /** Reviews of known readers whose answer is due again: their own lane, outside the bucket. */
  readerReviewsInFlight: number;
  /** A review (TokenReview and SubjectAccessReview) not answered by then is a 503. */
  reviewDeadlineMs: number;
}

export const METRICS_ACCESS_LIMITS: MetricsAccessLimits = {
  allowedEntries: 64,
  allowedTtlMs: 60_000,
  refusedEntries: 1024,
  refusedTtlMs: 10_000,
  newcomerReviewsInFlight: 4,
  reviewBurst: 10,
  reviewsPerSecond: 5,
  readerReviewsInFlight: 2,
  reviewDeadlineMs: 5_000,
};

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

type TokenReview = KubeObject & {
  status?: { authenticated?: boolean; user?: UserInfo; error?: string };
};
type SubjectAccessReview = KubeObject & {
  status?: { allowed?: boolean; denied?: boolean; reason?: string };
};

type RefusalStatus = 401 | 403 | 429 | 503;

/** The answer to a request: go on, or refuse it with this status, body and headers. */
export type AccessDecision =
  | { allowed: true }
  | { allowed: false; status: RefusalStatus; body: string; headers?: Record<string, string> };

/** Fixed texts: a stranger learns nothing from a refusal (no user, no apiserver message). */
const REFUSALS: Record<RefusalStatus, string> = {
  401: 'Unauthorized\n',
  403: 'Forbidden\n',
  429: 'Too Many Requests\n',
  503: 'Service Unavailable\n',
};

const ALLOWED: AccessDecision = { allowed: true };

function refusal(status: RefusalStatus, headers?: Record<string, string>): AccessDecision {
  return { allowed: false, status, body: REFUSALS[status], ...(headers ? { headers } : {}) };
}

/** The part of the API client reviews use: creates, each with its deadline. */
export type ReviewApi = Pick<ApiClient, 'create'>;

/**
 * Who may read /metrics: a bearer token the apiserver authenticates (TokenReview) whose user it
 * authorizes for `get` on the non-resource URL of the request (SubjectAccessReview), as
 * controller-runtime's secure metrics filter does; the metrics-reader ClusterRole grants that.
 * Every review costs API requests made as the operator, for whoever sends a token, so they are
 * bounded: answers are cached (allows and refusals apart, each with a TTL and an LRU bound), a
 * token sent many times at once is reviewed once, and reviews of new tokens are capped at once
 * and per second; beyond that a request is answered 429 at once, with no request made.
 */
export class MetricsAccess {
  private readonly allowed: LruMap<{ until: number }>;
  private readonly refused: LruMap<{ until: number; decision: AccessDecision }>;
  private readonly pending = new Map<string, Promise<AccessDecision>>();
  private readonly newcomers: ReviewLane;
  private readonly readers: ReviewLane;
  private readonly limits: MetricsAccessLimits;
  private readonly logger: Logger | undefined;

  constructor(
    private readonly client: ReviewApi,
    private readonly clock: Clock,
    options: { limits?: MetricsAccessLimits; logger?: Logger } = {},
  ) {
    const limits = (this.limits = options.limits ?? METRICS_ACCESS_LIMITS);
    this.logger = options.logger;
    this.allowed = new LruMap(limits.allowedEntries);
    this.refused = new LruMap(limits.refusedEntries);
    const bucket = new TokenBucket(limits.reviewBurst, limits.reviewsPerSecond, clock);
    this.newcomers = new ReviewLane(limits.newcomerReviewsInFlight, bucket);
    this.readers = new ReviewLane(limits.readerReviewsInFlight);
  }

  async decide(authorization: string | undefined, path: string): Promise<AccessDecision> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) return refusal(401);
    // The token itself is never kept, only its digest.
    const key = `${createHash('sha256').update(token).digest('hex')} ${path}`;
    const now = this.clock.now();
    const known = this.allowed.get(key);
    if (known && known.until > now) return ALLOWED;
    const refused = this.refused.get(key);
    if (refused && refused.until > now) return refused.decision;
    const pending = this.pending.get(key);
    if (pending) return pending;
    const lane = known ? this.readers : this.newcomers;
    if (!lane.tryEnter()) return refusal(429, { 'Retry-After': String(lane.retryAfterSeconds()) });
    const review = this.review(token, path)
      .then((decision) => this.remember(key, decision))
      .catch((error: unknown) => {
        this.logger?.warn({ err: error }, 'Could not review a /metrics token; answered 503');
        return refusal(503);
      })
      .finally(() => {
        lane.leave();
        this.pending.delete(key);
      });
    this.pending.set(key, review);
    return review;
  }

  private remember(key: string, decision: AccessDecision): AccessDecision {
    const now = this.clock.now();
    if (decision.allowed) {
      this.allowed.set(key, { until: now + this.limits.allowedTtlMs });
      this.refused.delete(key);
    } else {
      this.refused.set(key, { until: now + this.limits.refusedTtlMs, decision });
      this.allowed.delete(key);
    }
    return decision;
  }

  /** Both reviews, cut off together at the deadline (an unanswered request holds a lane's place). */
  private async review(token: string, path: string): Promise<AccessDecision> {
    const deadline = new AbortController();
    const timer = this.clock.setTimeout(() => deadline.abort(), this.limits.reviewDeadlineMs);
    const { signal } = deadline;
    try {
      const authn = await this.client.create<TokenReview>(
        TOKEN_REVIEWS,
        {
          apiVersion: TOKEN_REVIEWS.apiVersion,
          kind: TOKEN_REVIEWS.kind,
          metadata: {},
          spec: { token },
        } as TokenReview,
        { signal },
      );
      const user = authn.status?.user;
      if (!authn.status?.authenticated || !user?.username) return refusal(401);
      const authz = await this.client.create<SubjectAccessReview>(
        SUBJECT_ACCESS_REVIEWS,
        {
          apiVersion: SUBJECT_ACCESS_REVIEWS.apiVersion,
          kind: SUBJECT_ACCESS_REVIEWS.kind,
          metadata: {},
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path, verb: 'get' },
          },
        } as SubjectAccessReview,
        { signal },
      );
      if (authz.status?.allowed) return ALLOWED;
      // Said to the operator's log, not to the client: the name helps an admin bind the right account.
      this.logger?.info(
        { user: user.username, path },
        'Refused /metrics to a user without get on it',
      );
      return refusal(403);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }
}
