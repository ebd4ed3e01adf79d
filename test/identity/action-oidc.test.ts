import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ClusterLease } from '../../client/api/resources.js';
import { CI_ACCESS_POLICIES, LEASES, POOLS } from '../../client/api/resources.js';
import { GitHubIdTokenEndpoint } from '../../dev/oidc/github-id-token-endpoint.js';
import { OidcIssuer } from '../../dev/oidc/oidc-issuer.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { Manager } from '../../operator/runtime/manager.js';
import {
  createPoolInstance,
  hcpPool,
  poolInstance,
  releaseLeasesAndPools,
  settleInstance,
} from '../support/fixtures/pool-fixtures.js';
import { ActionJob, RUN_ENV } from '../support/runners/action-runner.js';
import { testEnv } from '../support/test-env.js';
import { useWorld } from '../support/world.js';
import {
  CI_SERVICE_ACCOUNT,
  exchangeCertificate,
  exchangeSettings,
  installCiIdentity,
  policy,
  policyReady,
} from '../support/fixtures/exchange-fixtures.js';

const world = useWorld({ namespace: 'action-oidc', enabled: true });
const { ns } = world;
const AUDIENCE = 'guestcluster-action';
const policyName = `action-oidc-${Math.random().toString(36).slice(2, 8)}`;
/** A JWT (a header and claims in base64url), wherever it would show. */
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*/;

let issuer: OidcIssuer;
let idTokens: GitHubIdTokenEndpoint;
let manager: Manager;
let inputs: Record<string, string>;

/** Every file the job's steps left (state, outputs, environment, RUNNER_TEMP), read back. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')),
  );
}

beforeAll(async () => {
  issuer = await OidcIssuer.start();
  idTokens = await GitHubIdTokenEndpoint.start(issuer, {
    sub: `repo:${RUN_ENV.GITHUB_REPOSITORY}:ref:refs/heads/main`,
    repository: RUN_ENV.GITHUB_REPOSITORY,
    ref: 'refs/heads/main',
    run_id: RUN_ENV.GITHUB_RUN_ID,
  });
  await installCiIdentity(ns);
  const certificate = await exchangeCertificate();
  manager = await world.startOperator({
    controllers: ['clusterpool', 'clusterlease', 'ciaccesspolicy'],
    config: { tokenExchange: exchangeSettings(certificate.certDir, [issuer.caPem]) },
  });
  await ns.api.create(
    CI_ACCESS_POLICIES,
    policy(policyName, {
      issuer: issuer.url,
      audience: AUDIENCE,
      rules: [
        {
          name: 'main',
          expression: `claims.repository == '${RUN_ENV.GITHUB_REPOSITORY}' && claims.ref == 'refs/heads/main'`,
          namespace: ns.name,
          serviceAccount: CI_SERVICE_ACCOUNT,
        },
      ],
    }),
  );
  await policyReady(ns, policyName, 'Ready');
  const cluster = ns.kubeConfig.getCurrentCluster();
  inputs = {
    'management-server': cluster.server,
    'management-certificate-authority': cluster.caData!,
    auth: 'github-oidc',
    'token-exchange-url': `https://127.0.0.1:${manager.serverPorts[0]}/v1/token`,
    'token-exchange-certificate-authority': certificate.caPem,
    'oidc-audience': AUDIENCE,
    namespace: ns.name,
    pool: 'oidc',
  };
});

afterAll(async () => {
  if (manager) await releaseLeasesAndPools(ns.api, ns.kubeConfig, ns.name);
  await ns.api.delete(CI_ACCESS_POLICIES, policyName).catch(() => undefined);
  await Promise.all([idTokens?.close(), issuer?.close()]);
});

describe('the GitHub Action with auth github-oidc', () => {
  it('leases a cluster and releases it with no stored credential, keeping the exchanged token off disk', async () => {
    const guestKubeconfig = await readFile(testEnv('kubeconfig'), 'utf8');
    await ns.api.create(POOLS, hcpPool(ns.name, 'oidc', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'oidc', 'oidc-0'));
    await settleInstance(ns.api, ns.name, 'oidc-0', 'Ready', guestKubeconfig);
    const job = await ActionJob.create({ GITHUB_RUN_ID: `${Date.now()}`, ...idTokens.env });

    const main = await job.main(inputs).done;
    expect(main.exitCode).toBe(0);
    expect(main.log).toContain(
      `Exchanged the job's ID token for a token of ServiceAccount ${ns.name}/${CI_SERVICE_ACCOUNT} (CIAccessPolicy ${policyName}, rule main)`,
    );
    const leaseName = main.outputs['lease-name']!;
    const lease = await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name);
    expect(lease.status?.phase).toBe('Bound');
    // The lease was made, and its kubeconfig read, as the policy's ServiceAccount.
    expect(lease.spec.subjects).toEqual([
      { kind: 'ServiceAccount', namespace: ns.name, name: CI_SERVICE_ACCOUNT },
    ]);
    expect(await readFile(main.exportedEnv.KUBECONFIG!, 'utf8')).toBe(guestKubeconfig);
    // The ID token and the exchanged token were masked, shown nowhere, and written nowhere.
    expect(main.masks.filter((mask) => JWT.test(mask)).length).toBeGreaterThanOrEqual(2);
    expect(main.log).not.toMatch(JWT);
    for (const text of await filesOf(job.workDir)) expect(text).not.toMatch(JWT);

    // The companion extend step exchanges an ID token of its own, as a later step would.
    const extend: Record<string, string> = { ...inputs, 'lease-name': leaseName, ttl: '2h' };
    delete extend.pool;
    const extended = await job.extend(extend);
    expect(extended.exitCode).toBe(0);
    expect(extended.log).toContain(
      `Exchanged the job's ID token for a token of ServiceAccount ${ns.name}/${CI_SERVICE_ACCOUNT}`,
    );
    expect(extended.log).not.toMatch(JWT);
    expect((await ns.api.get<ClusterLease>(LEASES, leaseName, ns.name)).spec.ttl).toBe('2h');

    const post = await job.post(inputs);
    expect(post.exitCode).toBe(0);
    expect(post.log).toContain(`Released ClusterLease ${ns.name}/${leaseName}`);
    expect(post.log).not.toMatch(JWT);
    await waitFor(ns.kubeConfig, {
      type: LEASES,
      name: leaseName,
      namespace: ns.name,
      until: (gone) => gone === undefined,
    });
    // One ID token for each step (a process of its own, holding nothing of the others').
    expect(idTokens.issued).toEqual([AUDIENCE, AUDIENCE, AUDIENCE]);
  });

  it('lets the CLI in with a GitLab-style ID token variable, once per token', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-oidc-'));
    const caFile = path.join(dir, 'management-ca.pem');
    const exchangeCaFile = path.join(dir, 'exchange-ca.pem');
    await writeFile(caFile, Buffer.from(inputs['management-certificate-authority']!, 'base64'));
    await writeFile(exchangeCaFile, inputs['token-exchange-certificate-authority']!);
    const token = await issuer.mint({
      aud: AUDIENCE,
      sub: 'project_path:octo-org/app:ref_type:branch:ref:main',
      repository: RUN_ENV.GITHUB_REPOSITORY,
      ref: 'refs/heads/main',
    });
    const list = (): Promise<{ stdout: string }> =>
      runCommand(
        process.execPath,
        [
          path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js'),
          'lease',
          'list',
          '-o',
          'json',
          '-n',
          ns.name,
          '--server',
          inputs['management-server']!,
          '--certificate-authority',
          caFile,
          '--token-exchange',
          inputs['token-exchange-url']!,
          '--token-exchange-ca',
          exchangeCaFile,
        ],
        { env: { PATH: process.env.PATH, HOME: dir, GUESTCLUSTER_ID_TOKEN: token } },
      );
    // The namespace's leases, read as the policy's ServiceAccount (the first test's is released).
    expect(JSON.parse((await list()).stdout)).toEqual({ namespace: ns.name, items: [] });
    // The same variable again: the exchange refuses a token it has seen.
    const again = await list().catch((error: { stderr?: string }) => error);
    expect((again as { stderr?: string }).stderr).toContain('TokenReplayed');
  });
});
