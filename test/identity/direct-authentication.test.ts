import { describe, expect, it } from '@jest/globals';
import { DIRECT_AUDIENCE } from '../../dev/oidc/direct-authentication.js';
import { OidcIssuer } from '../../dev/oidc/oidc-issuer.js';
import type { CommandResult } from '../../dev/control-plane/run-command.js';
import { CommandFailedError } from '../../dev/control-plane/run-command.js';
import { ROLE_BINDINGS } from '../../client/api/core-resources.js';
import { mintDirectToken } from '../support/direct-issuer.js';
import { useWorld } from '../support/world.js';
import {
  CI_SERVICE_ACCOUNT,
  installCiIdentity,
  kubectlWithToken,
} from '../support/fixtures/exchange-fixtures.js';

/**
 * The direct path (docs/ci-identities.md#direct-authentication): the run's control plane has a
 * JWT authenticator for a local issuer, configured as the docs configure one for GitHub, so a
 * CI's ID token is a Kubernetes credential as it is, with no exchange in between.
 */
const world = useWorld({ namespace: 'direct-auth' });
const ns = world.ns;

type Kubectl = (args: string[]) => Promise<CommandResult>;
type Answer = CommandResult & { ok: boolean };
const run = (as: Kubectl, args: string[]): Promise<Answer> =>
  as(args).then(
    (done) => ({ ...done, ok: true }),
    (error: unknown) => {
      if (!(error instanceof CommandFailedError)) throw error;
      return { stdout: error.stdout, stderr: error.stderr, ok: false };
    },
  );

/** The repository of this file's tokens, and the claims GitHub's tokens carry for it. */
const repository = (): string => `org/app-${ns.name}`;
const claims = (more: Record<string, unknown> = {}): Record<string, unknown> => ({
  aud: DIRECT_AUDIENCE,
  sub: `repo:${repository()}:ref:refs/heads/main`,
  repository: repository(),
  ref: 'refs/heads/main',
  ...more,
});

/** What the apiserver answers a token (kubectl auth whoami): the user, or its refusal. */
async function whoami(token: string): Promise<string> {
  const as = await kubectlWithToken(ns.kubeConfig, token);
  const answer = await run(as, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
  return answer.ok ? answer.stdout : `refused: ${answer.stderr.trim()}`;
}

/**
 * The authenticator reads the issuer's discovery document and keys on its own after the
 * apiserver starts; a file that runs first may be there before it has. Its answer is the
 * condition: asked again until it names the user, or until the deadline.
 */
async function firstAnswer(token: string): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await whoami(token);
    if (!answer.startsWith('refused') || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('direct authentication of a CI token by the apiserver', () => {
  it('authenticates a token as its repository, with exactly the rights RBAC gives that group', async () => {
    await installCiIdentity(ns);
    await ns.api.create(ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'ci-repository', namespace: ns.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CI_SERVICE_ACCOUNT },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: `ci:${repository()}` },
      ],
    });
    const token = await mintDirectToken(claims());
    expect(await firstAnswer(token)).toBe(`ci:repo:${repository()}:ref:refs/heads/main`);

    const as = await kubectlWithToken(ns.kubeConfig, token);
    const can = async (...args: string[]): Promise<string> =>
      (await run(as, ['auth', 'can-i', ...args])).stdout.trim();
    expect(await can('create', 'clusterleases.guestcluster.opdev.io', '-n', ns.name)).toBe('yes');
    expect(await can('get', 'clusterpools.guestcluster.opdev.io', '-n', ns.name)).toBe('yes');
    expect(await can('get', 'secrets', '-n', ns.name)).toBe('no');
    expect(await can('create', 'clusterleases.guestcluster.opdev.io', '-n', 'default')).toBe('no');
    const groups = await run(as, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.groups}']);
    expect(JSON.parse(groups.stdout)).toEqual(
      expect.arrayContaining([`ci:${repository()}`, 'system:authenticated']),
    );
  });

  it('refuses a token for another audience, an expired one, one without a repository, and one of another issuer', async () => {
    // Valid, so that the refusals below are the token's and not an authenticator not ready yet.
    expect(await firstAnswer(await mintDirectToken(claims()))).toMatch(/^ci:/);
    const unauthorized = /refused: .*(Unauthorized|must be logged in)/;

    expect(await whoami(await mintDirectToken(claims({ aud: 'another-audience' })))).toMatch(
      unauthorized,
    );
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    expect(await whoami(await mintDirectToken(claims(), { issuedAt: hourAgo }))).toMatch(
      unauthorized,
    );
    expect(await whoami(await mintDirectToken(claims({ repository: undefined })))).toMatch(
      unauthorized,
    );
    const stranger = await OidcIssuer.start({ path: '/direct' });
    try {
      expect(await whoami(await stranger.mint(claims()))).toMatch(unauthorized);
    } finally {
      await stranger.close();
    }
  });
});
