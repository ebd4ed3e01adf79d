import { createHash } from 'node:crypto';
import type { ApiClient } from '../kube/api-client.js';
import type { KubeObject } from '../kube/objects.js';
import { resourceType } from '../kube/resource-type.js';
import type { Clock } from './clock.js';

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

/** How long an answer is reused: a scrape every 15-30 s then costs no review (as controller-runtime's filter caches them). */
const ALLOWED_TTL_MS = 60_000;
const REFUSED_TTL_MS = 10_000;
const MAX_CACHED = 256;

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

/** The answer to a request: go on, or refuse it with this status and body. */
export type AccessDecision =
  { allowed: true } | { allowed: false; status: 401 | 403; body: string };

/**
 * Who may read /metrics: a bearer token the apiserver authenticates (TokenReview) whose user it
 * authorizes for `get` on the non-resource URL of the request (SubjectAccessReview), as
 * controller-runtime's secure metrics filter does. The metrics-reader ClusterRole grants that.
 */
export class MetricsAccess {
  private readonly answers = new Map<string, { decision: AccessDecision; until: number }>();

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
  ) {}

  async decide(authorization: string | undefined, path: string): Promise<AccessDecision> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token)
      return { allowed: false, status: 401, body: 'Unauthorized: a bearer token is required\n' };
    // The token itself is never kept, only its digest.
    const key = `${createHash('sha256').update(token).digest('hex')} ${path}`;
    const now = this.clock.now();
    const cached = this.answers.get(key);
    if (cached && cached.until > now) return cached.decision;
    const decision = await this.review(token, path);
    if (this.answers.size >= MAX_CACHED) this.answers.clear();
    this.answers.set(key, {
      decision,
      until: now + (decision.allowed ? ALLOWED_TTL_MS : REFUSED_TTL_MS),
    });
    return decision;
  }

  private async review(token: string, path: string): Promise<AccessDecision> {
    const authn = await this.client.create<TokenReview>(TOKEN_REVIEWS, {
      apiVersion: TOKEN_REVIEWS.apiVersion,
      kind: TOKEN_REVIEWS.kind,
      metadata: {},
      spec: { token },
    } as TokenReview);
    const user = authn.status?.user;
    if (!authn.status?.authenticated || !user?.username)
      return { allowed: false, status: 401, body: 'Unauthorized: the token was not accepted\n' };
    const authz = await this.client.create<SubjectAccessReview>(SUBJECT_ACCESS_REVIEWS, {
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
    } as SubjectAccessReview);
    if (authz.status?.allowed) return { allowed: true };
    return {
      allowed: false,
      status: 403,
      body: `Forbidden: user "${user.username}" may not get ${path}\n`,
    };
  }
}
