import { decodeJwt } from 'jose';
import type { ExchangeAnswer, ExchangeRequest } from '../../contracts/token-exchange.js';
import { parseGoDuration } from '../../client/api/duration.js';
import type { CIAccessPolicy } from '../../client/api/resources.js';
import { CI_ACCESS_POLICIES } from '../../client/api/resources.js';
import type { StoredCluster } from '../kube/objects.js';
import type { Logger } from '../runtime/logger.js';
import { LruMap } from '../runtime/lru-map.js';
import type { ControllerPorts } from '../runtime/ports.js';
import { TokenBucket } from '../runtime/token-bucket.js';
import { ExchangeRefusal } from './exchange-refusal.js';
import type { VerifiedClaims } from './id-token-verifier.js';
import { verifyIdToken } from './id-token-verifier.js';
import type { IssuerKeys } from './issuer-keys.js';
import type { CompiledRule, CompileResult } from './policy-rules.js';
import { compileRules } from './policy-rules.js';
import { ReplayGuard } from './replay-guard.js';
import { MIN_TOKEN_SECONDS } from '../../client/kube/token-request.js';
import { requestServiceAccountToken } from './token-issuer.js';

type Policy = StoredCluster<CIAccessPolicy>;

/** Exchanges per issuer and subject: a burst, then a steady rate. */
export interface ExchangeLimits {
  burst: number;
  perMinute: number;
}

/** Subjects whose buckets are kept; ID tokens whose jti is remembered. */
const MAX_SUBJECTS = 10_000;
const MAX_REMEMBERED_TOKENS = 100_000;
const MAX_COMPILED_POLICIES = 256;
const DEFAULT_LIFETIME_MS = 3_600_000;

/** A claim for an Event or a log line: a short string, or absent. */
function claimText(claims: VerifiedClaims, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = claims[name];
    if (typeof value === 'string' || typeof value === 'number') return String(value).slice(0, 200);
  }
  return undefined;
}

/** Who asked, in words: the repository (GitHub) or project (GitLab), the run, the subject. */
function identity(claims: VerifiedClaims): string {
  const repository = claimText(claims, 'repository', 'project_path') ?? 'an unnamed repository';
  const run = claimText(claims, 'run_id', 'pipeline_id', 'job_id');
  return `${repository}${run ? ` run ${run}` : ''} (subject ${claims.sub.slice(0, 200)})`;
}

/** The token's issuer and audiences as it claims them, unverified: only to pick a policy. */
function claimedIssuer(token: string): { iss: string; aud: string[] } {
  try {
    const { iss, aud } = decodeJwt(token);
    if (typeof iss !== 'string') throw new Error('no iss');
    return { iss, aud: typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [] };
  } catch {
    throw new ExchangeRefusal('InvalidToken', 'The ID token is not a JWT with an iss claim');
  }
}

function lifetimeSeconds(policy: Policy, asked: number | undefined): number {
  const maxMs = parseGoDuration(policy.spec.maxTokenLifetime ?? '1h') ?? DEFAULT_LIFETIME_MS;
  const max = Math.max(MIN_TOKEN_SECONDS, Math.floor(maxMs / 1000));
  return Math.min(max, Math.max(MIN_TOKEN_SECONDS, asked ?? max));
}

/**
 * The token exchange (docs/ci-identities.md): an ID token of a CI is verified for the policy of
 * its issuer, limited per issuer and subject, matched against the policy's rules, accepted once,
 * and answered with a token of the first matching rule's ServiceAccount. Policies are picked
 * from the cache and read live before anything is issued, so a deleted policy issues nothing.
 */
export class TokenExchange {
  private readonly buckets = new LruMap<TokenBucket>(MAX_SUBJECTS);
  private readonly replays: ReplayGuard;
  private readonly compiled = new LruMap<CompileResult>(MAX_COMPILED_POLICIES);

  constructor(
    private readonly ports: ControllerPorts,
    private readonly keys: IssuerKeys,
    private readonly limits: ExchangeLimits,
    private readonly logger: Logger,
  ) {
    this.replays = new ReplayGuard(MAX_REMEMBERED_TOKENS, ports.clock);
  }

  async exchange(request: ExchangeRequest): Promise<ExchangeAnswer> {
    const candidate = await this.pickPolicy(request.token);
    const claims = await verifyIdToken(
      request.token,
      { issuer: candidate.spec.issuer, audience: candidate.spec.audience },
      this.keys,
      this.ports.clock.now(),
    );
    this.takeRate(claims);
    const policy = await this.livePolicy(candidate);
    const rule = this.matchRule(policy, claims, request);
    // Remembered only once a rule admits the token: strangers' tokens never fill the memory.
    if (!this.replays.firstUse(claims.iss!, claims.jti, claims.exp * 1000))
      throw new ExchangeRefusal(
        'TokenReplayed',
        'The ID token was exchanged before; ask the CI for a new one',
      );
    const seconds = lifetimeSeconds(policy, request.expirationSeconds);
    const issued = await requestServiceAccountToken(this.ports.client, rule, seconds).catch(
      (error: unknown) => {
        if (error instanceof ExchangeRefusal)
          this.warn(policy, error, `for ${identity(claims)} by rule ${rule.name}`);
        throw error;
      },
    );
    void this.ports.events.record(
      policy,
      'Normal',
      'TokenIssued',
      `Issued a token of ServiceAccount ${rule.namespace}/${rule.serviceAccount} expiring at ${issued.expirationTimestamp} to ${identity(claims)} by rule ${rule.name}`,
    );
    this.logger.info(
      {
        policy: policy.metadata.name,
        rule: rule.name,
        namespace: rule.namespace,
        serviceAccount: rule.serviceAccount,
        subject: claims.sub,
        expires: issued.expirationTimestamp,
      },
      'Exchanged an ID token for a ServiceAccount token',
    );
    return {
      ...issued,
      namespace: rule.namespace,
      serviceAccount: rule.serviceAccount,
      policy: policy.metadata.name,
      rule: rule.name,
    };
  }

  /**
   * The cached policy for the token's claimed issuer (the audience it claims breaks ties): its
   * issuer and audience are what the token is then verified against, never the token's own.
   */
  private async pickPolicy(token: string): Promise<Policy> {
    const { iss, aud } = claimedIssuer(token);
    const cache = await this.ports.cache.read<CIAccessPolicy>(CI_ACCESS_POLICIES);
    const ofIssuer = cache
      .list(undefined, (policy) => policy.spec.issuer === iss)
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    const picked = ofIssuer.find((policy) => aud.includes(policy.spec.audience)) ?? ofIssuer[0];
    if (!picked)
      throw new ExchangeRefusal(
        'UnknownIssuer',
        `No CIAccessPolicy accepts ID tokens of issuer ${JSON.stringify(iss.slice(0, 200))}`,
      );
    return picked;
  }

  private takeRate(claims: VerifiedClaims): void {
    const key = `${claims.iss} ${claims.sub}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.limits.burst, this.limits.perMinute / 60, this.ports.clock);
      this.buckets.set(key, bucket);
    }
    if (!bucket.tryTake()) {
      const wait = Math.ceil(bucket.msUntilNext() / 1000);
      throw new ExchangeRefusal(
        'RateLimited',
        `Too many exchanges for subject ${claims.sub.slice(0, 200)}; try again in ${wait}s`,
        wait,
      );
    }
  }

  /** The policy as stored now: the same object (its UID), or nothing is issued. */
  private async livePolicy(cached: Policy): Promise<Policy> {
    const live = await this.ports.client.getOrUndefined<CIAccessPolicy>(
      CI_ACCESS_POLICIES,
      cached.metadata.name,
    );
    if (!live || live.metadata.uid !== cached.metadata.uid || live.metadata.deletionTimestamp)
      throw new ExchangeRefusal(
        'PolicyGone',
        `CIAccessPolicy ${cached.metadata.name} no longer exists`,
      );
    if (live.spec.issuer !== cached.spec.issuer || live.spec.audience !== cached.spec.audience)
      throw new ExchangeRefusal(
        'PolicyGone',
        `CIAccessPolicy ${cached.metadata.name} changed its issuer or audience; ask again`,
      );
    return live;
  }

  private rules(policy: Policy): CompileResult {
    const key = `${policy.metadata.uid}/${policy.metadata.generation ?? 0}`;
    let result = this.compiled.get(key);
    if (!result) {
      result = compileRules(policy);
      this.compiled.set(key, result);
    }
    return result;
  }

  private matchRule(
    policy: Policy,
    claims: VerifiedClaims,
    request: ExchangeRequest,
  ): CompiledRule {
    const compiled = this.rules(policy);
    if (!compiled.ok)
      throw new ExchangeRefusal(
        'PolicyInvalid',
        `Rule ${compiled.rule} of CIAccessPolicy ${policy.metadata.name} does not compile (see its Ready condition)`,
      );
    const rule = compiled.rules.find(
      (candidate) =>
        (!request.namespace || candidate.namespace === request.namespace) &&
        (!request.serviceAccount || candidate.serviceAccount === request.serviceAccount) &&
        candidate.matches(claims),
    );
    if (rule) return rule;
    const refusal = new ExchangeRefusal(
      'NoRuleMatched',
      `No rule of CIAccessPolicy ${policy.metadata.name} admits ${identity(claims)}${request.namespace ? ` for namespace ${request.namespace}` : ''}`,
    );
    this.warn(policy, refusal, '');
    throw refusal;
  }

  /** A refusal by policy, as a Warning Event on the policy (the admin's to act on). */
  private warn(policy: Policy, refusal: ExchangeRefusal, detail: string): void {
    void this.ports.events.record(
      policy,
      'Warning',
      refusal.reason,
      `${refusal.message}${detail ? ` ${detail}` : ''}`,
    );
  }
}
