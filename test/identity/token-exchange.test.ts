import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { JWTPayload } from 'jose';
import { CI_ACCESS_POLICIES, LEASES } from '../../client/api/resources.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { exchangedAccess } from '../../client/lease/exchanged-access.js';
import { EVENTS } from '../../client/api/core-resources.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { ExchangeRefusedError, exchangeIdToken } from '../../client/lease/token-exchange-client.js';
import type { ExchangedToken } from '../../client/lease/token-exchange-client.js';
import { OidcIssuer, hmacToken, unsignedToken } from '../../dev/oidc/oidc-issuer.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { TestClock } from '../support/fixtures/test-clock.js';
import { useWorld } from '../support/world.js';
import {
  installCiIdentity,
  exchangeCertificate,
  exchangeSettings,
  kubectlWithToken,
  policy,
  policyReady,
} from '../support/fixtures/exchange-fixtures.js';

const world = useWorld({ namespace: 'exchange' });
const { ns } = world;
const clock = new TestClock();
const AUDIENCE = 'guestcluster-test';
const SERVICE_ACCOUNT = 'guestcluster-ci';
const LIFETIME_SECONDS = 20 * 60;

let issuer: OidcIssuer;
let stranger: OidcIssuer;
let endpoint: { url: string; certificateAuthority: string };
const policyName = `exchange-${Math.random().toString(36).slice(2, 8)}`;
let subjects = 0;

/** GitHub's claims for a run of org/app on main, with a subject of the test's own (its own rate bucket). */
function githubClaims(extra: JWTPayload = {}): JWTPayload {
  subjects += 1;
  return {
    aud: AUDIENCE,
    sub: `repo:org/app:ref:refs/heads/main:test-${subjects}`,
    repository: 'org/app',
    ref: 'refs/heads/main',
    run_id: '4242',
    iat: Math.floor(clock.now() / 1000),
    ...extra,
  };
}

async function mint(claims: JWTPayload = githubClaims(), options = {}): Promise<string> {
  return issuer.mint(claims, { issuedAt: Math.floor(clock.now() / 1000), ...options });
}

async function refusal(idToken: string): Promise<ExchangeRefusedError> {
  const error = await exchangeIdToken(endpoint, { idToken }).then(
    (answer) => new Error(`issued a token of ${answer.namespace}/${answer.serviceAccount}`),
    (failure: unknown) => failure,
  );
  if (!(error instanceof ExchangeRefusedError)) throw error;
  return error;
}

type CoreEvent = KubeObject & {
  involvedObject?: { name?: string };
  reason?: string;
  message?: string;
  type?: string;
};

/** The policy's Events of a reason whose message passes `matches`, once there is one. */
async function policyEvents(
  reason: string,
  matches: (message: string) => boolean,
): Promise<CoreEvent[]> {
  const ours = (list: CoreEvent[]): CoreEvent[] =>
    list.filter(
      (e) =>
        e.involvedObject?.name === policyName && e.reason === reason && matches(e.message ?? ''),
    );
  const list = await waitForList<CoreEvent>(ns.kubeConfig, {
    type: EVENTS,
    namespace: 'default',
    until: (events) => ours(events).length > 0,
    timeoutMs: 10_000,
    description: `a ${reason} Event of CIAccessPolicy ${policyName}`,
  });
  return ours(list);
}

beforeAll(async () => {
  [issuer, stranger] = await Promise.all([OidcIssuer.start(), OidcIssuer.start()]);
  await installCiIdentity(ns);
  const certificate = await exchangeCertificate();
  const operator = await world.startOperator({
    controllers: ['ciaccesspolicy'],
    clock,
    config: {
      tokenExchange: exchangeSettings(certificate.certDir, [issuer.caPem, stranger.caPem]),
    },
  });
  endpoint = {
    url: `https://127.0.0.1:${operator.serverPorts[0]}/v1/token`,
    certificateAuthority: certificate.caPem,
  };
  await ns.api.create(
    CI_ACCESS_POLICIES,
    policy(policyName, {
      issuer: issuer.url,
      audience: AUDIENCE,
      maxTokenLifetime: '20m',
      rules: [
        {
          name: 'main-branch',
          expression: "claims.repository == 'org/app' && claims.ref == 'refs/heads/main'",
          namespace: ns.name,
          serviceAccount: SERVICE_ACCOUNT,
        },
      ],
    }),
  );
  await policyReady(ns, policyName, 'Ready');
});

afterAll(async () => {
  await ns.api.delete(CI_ACCESS_POLICIES, policyName).catch(() => undefined);
  await Promise.all([issuer?.close(), stranger?.close()]);
});

describe('the token exchange', () => {
  let issued: ExchangedToken;

  it("gives an allowed repository's run a token with exactly the ServiceAccount's rights, within the policy's lifetime", async () => {
    const before = clock.now();
    issued = await exchangeIdToken(endpoint, {
      idToken: await mint(),
      expirationSeconds: 24 * 3600,
    });
    expect(issued).toMatchObject({
      namespace: ns.name,
      serviceAccount: SERVICE_ACCOUNT,
      policy: policyName,
      rule: 'main-branch',
    });
    const expiresAt = Date.parse(issued.expirationTimestamp);
    // Asked for a day: the policy's 20 minutes at most (the apiserver's clock is the wall clock).
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + LIFETIME_SECONDS * 1000 + 5000);
    expect(expiresAt).toBeGreaterThan(
      before + (LIFETIME_SECONDS - 60) * 1000 - (clock.now() - Date.now()),
    );
    const as = await kubectlWithToken(ns.kubeConfig, issued.token);
    const whoami = await as(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(whoami.stdout).toBe(`system:serviceaccount:${ns.name}:${SERVICE_ACCOUNT}`);
    const can = async (...args: string[]): Promise<string> =>
      (await as(['auth', 'can-i', ...args]).catch((e: { stdout: string }) => e)).stdout.trim();
    expect(await can('create', 'clusterleases.guestcluster.opdev.io', '-n', ns.name)).toBe('yes');
    expect(await can('get', 'secrets', '-n', ns.name)).toBe('no');
    expect(await can('create', 'clusterleases.guestcluster.opdev.io', '-n', 'default')).toBe('no');
    expect(await can('create', 'serviceaccounts/token', '-n', ns.name)).toBe('no');
  });

  it('records the exchange as an Event on the policy, naming repository, run and expiry, never the token', async () => {
    const events = await policyEvents('TokenIssued', () => true);
    const message = events[0]!.message!;
    expect(message).toContain('org/app run 4242');
    expect(message).toContain(issued.expirationTimestamp);
    expect(message).not.toContain(issued.token);
  });

  it.each<[string, () => Promise<string>, string]>([
    ['a wrong audience', () => mint(githubClaims({ aud: 'someone-else' })), 'AudienceMismatch'],
    ['another issuer', () => stranger.mint(githubClaims()), 'UnknownIssuer'],
    [
      'an expired token',
      () => mint(githubClaims(), { issuedAt: Math.floor(clock.now() / 1000) - 1000 }),
      'TokenExpired',
    ],
    [
      'a token signed by an unknown key',
      () => mint(githubClaims(), { unpublishedKey: {} }),
      'UnknownKey',
    ],
    [
      'a forged signature under a published key ID',
      () => mint(githubClaims(), { unpublishedKey: { kid: issuer.kids[0] } }),
      'SignatureInvalid',
    ],
    [
      'alg: none',
      () =>
        Promise.resolve(
          unsignedToken({
            ...githubClaims(),
            iss: issuer.url,
            jti: 'none-1',
            exp: Math.floor(clock.now() / 1000) + 300,
          }),
        ),
      'AlgorithmNotAllowed',
    ],
    [
      'HS256 keyed with the public key',
      () =>
        hmacToken(
          {
            ...githubClaims(),
            iss: issuer.url,
            jti: 'hs-1',
            exp: Math.floor(clock.now() / 1000) + 300,
          },
          issuer.publicKeyPem(),
          issuer.kids[0],
        ),
      'AlgorithmNotAllowed',
    ],
    [
      'a repository no rule allows',
      () => mint(githubClaims({ repository: 'org/other' })),
      'NoRuleMatched',
    ],
    [
      'a ref no rule allows',
      () => mint(githubClaims({ ref: 'refs/heads/feature' })),
      'NoRuleMatched',
    ],
  ])('refuses %s, with its own reason, issuing nothing', async (_, token, reason) => {
    const refused = await refusal(await token());
    expect(refused.reason).toBe(reason);
    expect(refused.message).not.toMatch(/eyJ/);
  });

  it('refuses a replayed jti', async () => {
    const token = await mint();
    await exchangeIdToken(endpoint, { idToken: token });
    const refused = await refusal(token);
    expect(refused.reason).toBe('TokenReplayed');
  });

  it("keeps a stranger's token (no rule admits it) out of the replay memory", async () => {
    const token = await mint(githubClaims({ repository: 'stranger/repo' }));
    expect((await refusal(token)).reason).toBe('NoRuleMatched');
    expect((await refusal(token)).reason).toBe('NoRuleMatched');
  });

  it('names a refusal by policy in a Warning Event on the policy', async () => {
    const events = await policyEvents('NoRuleMatched', (message) => message.includes('org/other'));
    expect(events[0]!.type).toBe('Warning');
  });

  it('picks up a rotated key without a restart, and fetches the keys once for many unknown key IDs', async () => {
    const fetches = issuer.jwksFetches;
    await issuer.rotateKeys({ keep: 0 });
    // Past the refresh interval of the last fetch (the unknown-key case above).
    clock.advance(11_000);
    const answer = await exchangeIdToken(endpoint, { idToken: await mint() });
    expect(answer.serviceAccount).toBe(SERVICE_ACCOUNT);
    expect(issuer.jwksFetches).toBe(fetches + 1);
    // Forged key IDs right after: refused without another fetch.
    const forged = await Promise.all(
      [1, 2, 3].map(async () => refusal(await mint(githubClaims(), { unpublishedKey: {} }))),
    );
    expect(forged.map((r) => r.reason)).toEqual(['UnknownKey', 'UnknownKey', 'UnknownKey']);
    expect(issuer.jwksFetches).toBe(fetches + 1);
  });

  it('keeps 100 parallel requests of one subject within its rate limit', async () => {
    const claims = githubClaims();
    const tokens = await Promise.all(Array.from({ length: 100 }, () => mint({ ...claims })));
    const started = Date.now();
    const outcomes = await Promise.all(
      tokens.map((idToken) =>
        exchangeIdToken(endpoint, { idToken }).then(
          () => 'issued',
          (error: unknown) =>
            error instanceof ExchangeRefusedError ? error.reason : String(error),
        ),
      ),
    );
    const minutes = (Date.now() - started) / 60_000;
    const issuedCount = outcomes.filter((o) => o === 'issued').length;
    // A burst of 5, then 6 a minute.
    expect(issuedCount).toBeGreaterThanOrEqual(5);
    expect(issuedCount).toBeLessThanOrEqual(5 + Math.ceil(6 * minutes));
    expect(new Set(outcomes.filter((o) => o !== 'issued'))).toEqual(new Set(['RateLimited']));
  });

  it('exchanges again, in the client, once the token nears its expiry (a long wait)', async () => {
    let now = Date.now();
    const expiries: string[] = [];
    const cluster = ns.kubeConfig.getCurrentCluster();
    const context = {
      server: cluster.server,
      ca: Buffer.from(cluster.caData!, 'base64').toString(),
      insecureSkipTlsVerify: false,
    };
    const api = new ApiClient(
      exchangedAccess(context, {
        idToken: () => mint(),
        endpoint,
        namespace: ns.name,
        secret: () => undefined,
        exchanged: (answer) => expiries.push(answer.expirationTimestamp),
        now: () => now,
      }),
    );
    try {
      await api.list(LEASES, { namespace: ns.name });
      await api.list(LEASES, { namespace: ns.name });
      expect(expiries).toHaveLength(1);
      now = Date.parse(expiries[0]!) - 60_000;
      await api.list(LEASES, { namespace: ns.name });
      expect(expiries).toHaveLength(2);
    } finally {
      await api.close();
    }
  });

  it('issues nothing once the policy is deleted mid-run', async () => {
    const before = await exchangeIdToken(endpoint, { idToken: await mint() });
    expect(before.policy).toBe(policyName);
    await ns.api.delete(CI_ACCESS_POLICIES, policyName);
    const refused = await refusal(await mint());
    expect(['PolicyGone', 'UnknownIssuer']).toContain(refused.reason);
  });
});
