import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments } from 'yaml';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { CI_ACCESS_POLICIES, INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { OidcIssuer } from '../../dev/oidc/oidc-issuer.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';
import { hcpPool } from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import {
  CI_SERVICE_ACCOUNT,
  exchangeCertificate,
  exchangeSettings,
  policy,
  policyReady,
} from '../support/fixtures/exchange-fixtures.js';
import type { Finished } from './cli-run.js';
import { ciKubeconfig, installedCli, leaseGone, run } from './cli-run.js';

/**
 * The shipped CI samples, run the way their CI systems run them: the Tekton Tasks' step scripts
 * (samples/tekton/lease-task.yaml) with Tekton's variables substituted, and the .gitlab-ci.yml
 * job of docs/ci/gitlab.md with GitLab's variables, against the simulated platform with the
 * operator (an hcp pool: its guests share one guest API, reached through the router). Without a
 * stored credential, as the samples show first: the operator's token exchange trades GitLab's
 * ID tokens and the Tekton steps' projected ServiceAccount tokens, each of an issuer stand-in.
 */
const world = useWorld({ namespace: 'ci-samples', enabled: true, platform: { hcp: true } });
const { ns } = world;
const POOL = 'hcp-pool';
/** What the samples' ID tokens are for: the audience of their CIAccessPolicies. */
const AUDIENCE = 'guestcluster';
/** Where the Pipeline runs on its build cluster: the TaskRuns' namespace and ServiceAccount. */
const BUILD_NAMESPACE = 'pipelines';
const PIPELINE_SERVICE_ACCOUNT = 'pipeline';
const policyNames = {
  gitlab: `gitlab-${randomUUID().slice(0, 6)}`,
  tekton: `tekton-${randomUUID().slice(0, 6)}`,
};

let dir: string;
let managementKubeconfig: string;
/** PATH with guestcluster, kubectl (and `oc`, which kubectl plays here) and Node 24. */
let searchPath: string;
/** gitlab.com's issuer, and the build cluster's ServiceAccount issuer. */
let gitlab: OidcIssuer;
let buildCluster: OidcIssuer;
/** Nothing secret: the management server, its token exchange, and a file of both their CAs. */
let management: { server: string; tokenExchange: string; caFile: string };

const gone = (name: string): Promise<void> => leaseGone(ns.kubeConfig, ns.name, name);

/** Route hosts have no DNS here: the router is the guests' HTTPS proxy (what DNS is elsewhere). */
const network = (): NodeJS.ProcessEnv => ({
  HTTPS_PROXY: world.platform.router.proxyUrl,
  NO_PROXY: '',
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gc-ci-samples-'));
  [gitlab, buildCluster] = await Promise.all([OidcIssuer.start(), OidcIssuer.start()]);
  await createPullSecret(ns.api, ns.name);
  // Three warm guests: one for each job.
  await ns.api.create(POOLS, hcpPool(ns.name, POOL, { maxSize: 3, warmSpares: 3 }));
  // Applies samples/ci-identity-rbac.yaml: the ServiceAccount the exchange issues tokens of.
  managementKubeconfig = await ciKubeconfig(ns.kubeConfig, ns.name, dir);
  const certificate = await exchangeCertificate();
  const operator = await world.startOperator({
    controllers: [
      'clusterpool',
      'clusterlease',
      'clusterinstance',
      'guesthealth',
      'ciaccesspolicy',
    ],
    config: {
      tokenExchange: exchangeSettings(certificate.certDir, [gitlab.caPem, buildCluster.caPem]),
    },
  });
  // The policies of docs/ci-identities.md#issuers, for the issuer stand-ins.
  await ns.api.create(
    CI_ACCESS_POLICIES,
    policy(policyNames.gitlab, {
      issuer: gitlab.url,
      audience: AUDIENCE,
      rules: [
        {
          name: 'protected-main',
          expression:
            "claims.project_path == 'group/app' && claims.ref == 'main' && claims.ref_type == 'branch' && claims.ref_protected == 'true'",
          namespace: ns.name,
          serviceAccount: CI_SERVICE_ACCOUNT,
        },
      ],
    }),
  );
  await ns.api.create(
    CI_ACCESS_POLICIES,
    policy(policyNames.tekton, {
      issuer: buildCluster.url,
      audience: AUDIENCE,
      rules: [
        {
          name: 'pipelines',
          expression: `claims.sub == 'system:serviceaccount:${BUILD_NAMESPACE}:${PIPELINE_SERVICE_ACCOUNT}'`,
          namespace: ns.name,
          serviceAccount: CI_SERVICE_ACCOUNT,
        },
      ],
    }),
  );
  await Promise.all(Object.values(policyNames).map((name) => policyReady(ns, name, 'Ready')));
  const cluster = ns.kubeConfig.getCurrentCluster();
  const caFile = path.join(dir, 'management-ca.crt');
  await writeFile(
    caFile,
    Buffer.from(cluster.caData!, 'base64').toString('utf8') + certificate.caPem,
  );
  management = {
    server: cluster.server,
    tokenExchange: `https://127.0.0.1:${operator.serverPorts[0]}/v1/token`,
    caFile,
  };
  const installed = await installedCli();
  await symlink(testEnv('kubectl'), path.join(installed.bin, 'kubectl'));
  await symlink(testEnv('kubectl'), path.join(installed.bin, 'oc'));
  searchPath = installed.path;
});

afterAll(async () => {
  await Promise.all(
    Object.values(policyNames).map((name) =>
      ns.api.delete(CI_ACCESS_POLICIES, name).catch(() => undefined),
    ),
  );
  await Promise.all([gitlab?.close(), buildCluster?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The exchange's line in a command's log: the identity it acts as, never a token. */
const EXCHANGED = new RegExp(
  `^Exchanged the ID token for a token of ServiceAccount \\S+/${CI_SERVICE_ACCOUNT} \\(CIAccessPolicy (\\S+), rule`,
  'm',
);
/** A JWT (a header and claims in base64url), wherever it would show. */
const JWT = /eyJ[\w-]+\.eyJ[\w-]+\.[\w-]*/;

interface TektonStep {
  name: string;
  env?: { name: string; value: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
  script: string;
}

interface TektonVolume {
  name: string;
  projected?: {
    sources: {
      serviceAccountToken?: { audience: string; expirationSeconds: number; path: string };
    }[];
  };
}

interface TektonObject {
  kind: string;
  metadata: { name: string };
  spec: {
    params?: { name: string; default?: string }[];
    volumes?: TektonVolume[];
    steps?: TektonStep[];
    tasks?: {
      name: string;
      params?: { name: string; value: string }[];
      taskSpec?: { steps: TektonStep[] };
    }[];
    finally?: { name: string; params?: { name: string; value: string }[] }[];
  };
}

/**
 * Tekton's variable substitution, for the variables the samples use; a variable it does not
 * know fails the test (Tekton would reject the Task). Shell command substitutions stay.
 */
function substitute(text: string, values: Record<string, string>): string {
  return text.replace(
    /\$\(((?:params|context|workspaces|results|tasks)\.[^)]+)\)/g,
    (_, key: string) => {
      if (!(key in values)) throw new Error(`the test does not know Tekton's $(${key})`);
      return values[key]!;
    },
  );
}

/**
 * The kubelet's part for one step's pod: each projected ServiceAccount token volume the step
 * mounts, written to a folder of the test's as the build cluster would issue it (its issuer, the
 * TaskRun's ServiceAccount, the volume's audience and expiry). Gives each mount path's folder.
 */
async function mountVolumes(task: TektonObject, step: TektonStep): Promise<Record<string, string>> {
  const mounts: Record<string, string> = {};
  for (const mount of step.volumeMounts ?? []) {
    const volume = task.spec.volumes!.find((v) => v.name === mount.name)!;
    const folder = await mkdtemp(path.join(dir, `volume-${mount.name}-`));
    for (const { serviceAccountToken: token } of volume.projected!.sources) {
      if (!token) continue;
      const jwt = await buildCluster.mint(
        {
          aud: [token.audience],
          sub: `system:serviceaccount:${BUILD_NAMESPACE}:${PIPELINE_SERVICE_ACCOUNT}`,
          'kubernetes.io': {
            namespace: BUILD_NAMESPACE,
            pod: { name: `${step.name}-pod`, uid: randomUUID() },
            serviceaccount: { name: PIPELINE_SERVICE_ACCOUNT, uid: randomUUID() },
          },
        },
        { lifetimeSeconds: token.expirationSeconds },
      );
      await writeFile(path.join(folder, token.path), jwt, { mode: 0o600 });
    }
    mounts[mount.mountPath] = folder;
  }
  return mounts;
}

/** Runs one step as Tekton does: its script as an executable file, with the step's env and volumes. */
async function runStep(
  task: TektonObject,
  step: TektonStep,
  values: Record<string, string>,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Finished> {
  const file = path.join(dir, `${step.name}-${randomUUID().slice(0, 8)}.sh`);
  await writeFile(file, substitute(step.script, values));
  await chmod(file, 0o755);
  const mounts = Object.entries(await mountVolumes(task, step));
  const mounted = (value: string): string =>
    mounts.reduce((text, [mountPath, folder]) => text.replaceAll(mountPath, folder), value);
  const stepEnv = Object.fromEntries(
    (step.env ?? []).map((e) => [e.name, mounted(substitute(e.value, values))]),
  );
  return run(file, [], {
    PATH: searchPath,
    HOME: path.join(dir, 'tekton-home'),
    ...stepEnv,
    ...extraEnv,
  }).done;
}

describe('the Tekton Tasks of samples/tekton/lease-task.yaml', () => {
  let objects: TektonObject[];
  let pipeline: TektonObject;
  const task = (name: string): TektonObject => objects.find((o) => o.metadata.name === name)!;
  /** A Task's parameters: its defaults, overridden by the TaskRun's. */
  const params = (of: TektonObject, given: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      (of.spec.params ?? []).map((p) => [`params.${p.name}`, given[p.name] ?? p.default ?? '']),
    );
  /** The Pipeline's parameters of a PipelineRun, as the Pipeline passes them to one of its Tasks. */
  const passed = (
    to: { params?: { name: string; value: string }[] },
    run: Record<string, string>,
  ): Record<string, string> =>
    Object.fromEntries(
      (to.params ?? [])
        .filter((p) => /^\$\(params\.[^)]+\)$/.test(p.value))
        .map((p) => [p.name, run[/^\$\(params\.([^)]+)\)$/.exec(p.value)![1]!] ?? '']),
    );
  /** Workspaces as Tekton sees them: bound with a path, or not. */
  const workspaces = (bound: Record<string, string | undefined>): Record<string, string> =>
    Object.fromEntries(
      Object.entries(bound).flatMap(([name, folder]) => [
        [`workspaces.${name}.bound`, folder ? 'true' : 'false'],
        [`workspaces.${name}.path`, folder ?? ''],
      ]),
    );
  let results: string;

  beforeAll(async () => {
    const text = await readFile(
      path.join(projectRoot(), 'samples', 'tekton', 'lease-task.yaml'),
      'utf8',
    );
    objects = parseAllDocuments(text).map((d) => d.toJS() as TektonObject);
    pipeline = objects.find((o) => o.kind === 'Pipeline')!;
    results = path.join(dir, 'tekton-results');
    await mkdir(results, { recursive: true });
  });

  /** The acquire Task's one step, in a TaskRun of this name, with these parameters and workspaces. */
  async function acquire(
    taskRun: string,
    given: Record<string, string>,
    bound: Record<string, string | undefined>,
  ): Promise<Finished> {
    const of = task('guestcluster-lease-acquire');
    return runStep(of, of.spec.steps![0]!, {
      ...params(of, given),
      'context.taskRun.name': taskRun,
      'context.taskRun.namespace': BUILD_NAMESPACE,
      ...workspaces(bound),
      'results.lease-name.path': path.join(results, `${taskRun}-lease-name`),
      'results.kubeconfig.path': path.join(results, `${taskRun}-kubeconfig`),
    });
  }

  /** The release Task's one step. */
  async function release(
    given: Record<string, string>,
    bound: Record<string, string | undefined>,
  ): Promise<Finished> {
    const of = task('guestcluster-lease-release');
    return runStep(of, of.spec.steps![0]!, { ...params(of, given), ...workspaces(bound) });
  }

  /** A folder with what a ConfigMap of the CAs (key ca.crt) holds. */
  async function caWorkspace(): Promise<string> {
    const folder = await mkdtemp(path.join(dir, 'workspace-management-ca-'));
    await writeFile(path.join(folder, 'ca.crt'), await readFile(management.caFile));
    return folder;
  }

  it('with no stored secret: acquire exchanges its ServiceAccount token and writes a working kubeconfig, the Pipeline tests with it, release holds it after a failure and gives it back after a success', async () => {
    const workspace = await mkdtemp(path.join(dir, 'workspace-guest-'));
    const managementCa = await caWorkspace();
    const pipelineRun = {
      pool: POOL,
      namespace: ns.name,
      'token-exchange-url': management.tokenExchange,
      'management-server': management.server,
    };
    const acquireTask = pipeline.spec.tasks!.find((t) => t.name === 'acquire')!;
    const taskRun = 'e2e-run-7-acquire';
    const acquired = await acquire(taskRun, passed(acquireTask, pipelineRun), {
      kubeconfig: workspace,
      management: undefined,
      'management-ca': managementCa,
    });
    expect(acquired.stderr).toContain(`ClusterLease ${taskRun}: Bound`);
    expect(acquired.code).toBe(0);
    // The build cluster's token of its ServiceAccount was exchanged: nothing stored was used.
    expect(EXCHANGED.exec(acquired.stderr)?.[1]).toBe(policyNames.tekton);
    expect(acquired.stderr).not.toMatch(JWT);
    expect(await readFile(path.join(results, `${taskRun}-lease-name`), 'utf8')).toBe(taskRun);
    const kubeconfig = path.join(workspace, 'kubeconfig');
    expect(await readFile(path.join(results, `${taskRun}-kubeconfig`), 'utf8')).toBe(kubeconfig);
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);
    const lease = await ns.api.get<ClusterLease>(LEASES, taskRun, ns.name);
    expect(lease.spec.requestedBy).toBe(`Tekton TaskRun ${BUILD_NAMESPACE}/${taskRun}`);
    expect(lease.spec.subjects).toEqual([
      { kind: 'ServiceAccount', namespace: ns.name, name: CI_SERVICE_ACCOUNT },
    ]);
    expect(lease.status?.phase).toBe('Bound');

    const e2e = pipeline.spec.tasks!.find((t) => t.name === 'e2e')!.taskSpec!.steps[0]!;
    const tested = await runStep(pipeline, e2e, { 'workspaces.guest.path': workspace }, network());
    expect(tested).toMatchObject({ code: 0, stderr: '' });
    expect(tested.stdout).toMatch(/^NAME\s+VERSION[^\n]*\nversion\s/);

    // The Pipeline's finally, with the Pipeline's $(tasks.status).
    const releaseTask = pipeline.spec.finally!.find((t) => t.name === 'release')!;
    expect(releaseTask.params).toEqual(
      expect.arrayContaining([
        { name: 'job-status', value: '$(tasks.status)' },
        { name: 'hold-on-failure', value: '30m' },
      ]),
    );
    const leaseName = await readFile(path.join(results, `${taskRun}-lease-name`), 'utf8');
    const finallyRun = (status: string, diagnostics?: string): Promise<Finished> =>
      release(
        {
          ...passed(releaseTask, pipelineRun),
          'lease-name': leaseName,
          'job-status': status,
          'hold-on-failure': '30m',
        },
        { management: undefined, 'management-ca': managementCa, diagnostics },
      );

    // Had the test failed, $(tasks.status) would be Failed: the diagnostics go to the workspace,
    // and the cluster is kept for 30m. The release Task's pod has a token of its own.
    const diagnostics = await mkdtemp(path.join(dir, 'workspace-diagnostics-'));
    const failed = await finallyRun('Failed', diagnostics);
    expect(failed.code).toBe(0);
    expect(EXCHANGED.exec(failed.stderr)?.[1]).toBe(policyNames.tekton);
    expect(failed.stdout).toMatch(new RegExp(`^ClusterLease ${ns.name}/${taskRun}: held until `));
    const held = await ns.api.get<ClusterLease>(LEASES, taskRun, ns.name);
    expect(held.metadata?.labels?.['guestcluster.opdev.io/held']).toBe('true');
    expect(
      await readFile(
        path.join(diagnostics, `guestcluster-diagnostics-${taskRun}`, 'diagnostics.md'),
        'utf8',
      ),
    ).toContain(`# Diagnostics: lease ${ns.name}/${taskRun}`);

    // After a test that passed, the same Task releases the cluster (here: ends the hold).
    const released = await finallyRun('Succeeded');
    expect(released).toMatchObject({
      code: 0,
      stdout: `ClusterLease ${ns.name}/${taskRun}: released\n`,
    });
    await gone(taskRun);
  });

  it('with a stored kubeconfig in the management workspace instead, acquires and releases', async () => {
    const workspace = await mkdtemp(path.join(dir, 'workspace-guest-'));
    const stored = await mkdtemp(path.join(dir, 'workspace-management-'));
    await writeFile(path.join(stored, 'kubeconfig'), await readFile(managementKubeconfig));
    const taskRun = 'e2e-run-8-acquire';
    const acquired = await acquire(
      taskRun,
      { pool: POOL, namespace: ns.name },
      { kubeconfig: workspace, management: stored, 'management-ca': undefined },
    );
    expect(acquired.stderr).toContain(`ClusterLease ${taskRun}: Bound`);
    expect(acquired.stderr).not.toMatch(EXCHANGED);
    expect(acquired.code).toBe(0);
    const released = await release(
      { 'lease-name': taskRun, namespace: ns.name },
      { management: stored, 'management-ca': undefined, diagnostics: undefined },
    );
    expect(released).toMatchObject({
      code: 0,
      stdout: `ClusterLease ${ns.name}/${taskRun}: released\n`,
    });
    await gone(taskRun);
  });
});

describe('the .gitlab-ci.yml job of docs/ci/gitlab.md', () => {
  interface GitLabJob {
    id_tokens: Record<string, { aud: string }>;
    before_script: string[];
    script: string[];
    after_script: string[];
  }

  /** The predefined variables of one GitLab job, as a runner sets them. */
  const PREDEFINED = {
    GITLAB_CI: 'true',
    CI: 'true',
    CI_PROJECT_PATH: 'group/app',
    CI_PIPELINE_ID: '501',
    CI_JOB_ID: '90210',
    CI_JOB_NAME: 'e2e',
    CI_JOB_URL: 'https://gitlab.example/group/app/-/jobs/90210',
    GITLAB_USER_LOGIN: 'dev1',
  };

  /**
   * The ID tokens a job asks for, as GitLab makes them: one per entry of `id_tokens`, signed by
   * its issuer, with the entry's audience and the claims of this job (a protected main branch).
   */
  async function idTokens(asked: GitLabJob['id_tokens']): Promise<Record<string, string>> {
    const tokens = Object.entries(asked).map(async ([variable, { aud }]) => {
      const token = await gitlab.mint({
        aud,
        sub: 'project_path:group/app:ref_type:branch:ref:main',
        namespace_path: 'group',
        project_path: PREDEFINED.CI_PROJECT_PATH,
        pipeline_id: PREDEFINED.CI_PIPELINE_ID,
        pipeline_source: 'push',
        job_id: PREDEFINED.CI_JOB_ID,
        user_login: PREDEFINED.GITLAB_USER_LOGIN,
        ref: 'main',
        ref_type: 'branch',
        ref_path: 'refs/heads/main',
        ref_protected: 'true',
      });
      return [variable, token] as const;
    });
    return Object.fromEntries(await Promise.all(tokens));
  }

  /**
   * A GitLab runner runs before_script and script in one shell, after_script in another, both in
   * the project's folder, where artifacts are collected from.
   */
  const shell = (lines: string[], jobEnv: NodeJS.ProcessEnv, cwd: string): Promise<Finished> =>
    run('sh', ['-e', '-c', lines.join('\n')], jobEnv, cwd).done;

  it('acquires in before_script, the script uses the cluster, after a failure after_script keeps its diagnostics and holds it', async () => {
    const markdown = await readFile(path.join(projectRoot(), 'docs', 'ci', 'gitlab.md'), 'utf8');
    const yaml = /```yaml\n([\s\S]*?)```/.exec(markdown)![1]!;
    const file = parse(yaml) as {
      variables: Record<string, string>;
      e2e: GitLabJob & { artifacts: { when: string; paths: string[] } };
    };
    const project = path.join(dir, 'gitlab-project');
    await mkdir(project, { recursive: true });
    const jobEnv = {
      PATH: searchPath,
      HOME: path.join(dir, 'gitlab-home'),
      ...PREDEFINED,
      ...file.variables,
      // The project's CI/CD variables override the file's; none is a secret.
      GUESTCLUSTER_NAMESPACE: ns.name,
      GUESTCLUSTER_SERVER: management.server,
      GUESTCLUSTER_TOKEN_EXCHANGE: management.tokenExchange,
      // A CI/CD variable of type File: GitLab writes its content to a file and passes the path.
      GUESTCLUSTER_CA: management.caFile,
      ...(await idTokens(file.e2e.id_tokens)),
      ...network(),
    };
    expect(Object.keys(file.e2e.id_tokens)).toHaveLength(2);
    const lease = `gitlab-${PREDEFINED.CI_JOB_ID}`;
    const job = await shell([...file.e2e.before_script, ...file.e2e.script], jobEnv, project);
    expect(job.stderr).toContain(`ClusterLease ${lease}: Bound`);
    expect(job.code).toBe(0);
    // GitLab's ID token was exchanged for the policy's ServiceAccount; no token shows in the log.
    expect(EXCHANGED.exec(job.stderr)?.[1]).toBe(policyNames.gitlab);
    expect(job.stderr + job.stdout).not.toMatch(JWT);
    expect(job.stdout.split('\n')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^openshift-config\s+Active/)]),
    );
    const bound = await ns.api.get<ClusterLease>(LEASES, lease, ns.name);
    expect(bound.spec.requestedBy).toBe(
      `GitLab group/app pipeline 501 job 90210 (e2e) by dev1 ${PREDEFINED.CI_JOB_URL}`,
    );
    expect(bound.spec.ocpVersion).toBe('4.16');
    expect(bound.spec.subjects).toEqual([
      { kind: 'ServiceAccount', namespace: ns.name, name: CI_SERVICE_ACCOUNT },
    ]);

    // Say a later line of the script failed: GitLab runs after_script with CI_JOB_STATUS=failed.
    const after = await shell(
      file.e2e.after_script,
      { ...jobEnv, CI_JOB_STATUS: 'failed' },
      project,
    );
    expect(after.code).toBe(0);
    // With the job's second ID token: the first was spent by acquire.
    expect(EXCHANGED.exec(after.stderr)?.[1]).toBe(policyNames.gitlab);
    expect(after.stdout).toMatch(
      new RegExp(`^ClusterLease ${ns.name}/${lease}: held until \\S+\\n$`),
    );
    const held = await ns.api.get<ClusterLease>(LEASES, lease, ns.name);
    expect(held.metadata?.labels?.['guestcluster.opdev.io/held']).toBe('true');
    const holdEnd =
      Date.parse(held.status!.boundTime!) + Number(/^(\d+)s$/.exec(held.spec.ttl!)![1]) * 1000;
    expect(holdEnd).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(holdEnd).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 1000);
    // The diagnostics, where the job's artifacts (when: on_failure) collect them.
    expect(file.e2e.artifacts).toEqual({
      when: 'on_failure',
      paths: ['guestcluster-diagnostics-*/'],
    });
    const report = path.join(project, `guestcluster-diagnostics-${lease}`, 'diagnostics.md');
    expect(await readFile(report, 'utf8')).toContain(`# Diagnostics: lease ${ns.name}/${lease}`);

    // Done debugging: a plain release by a person with the stored CI identity ends the hold.
    const released = await run(
      'guestcluster',
      ['lease', 'release', '--kubeconfig', managementKubeconfig, '-n', ns.name, lease],
      jobEnv,
    ).done;
    expect(released).toMatchObject({
      code: 0,
      stdout: `ClusterLease ${ns.name}/${lease}: released\n`,
    });
    await gone(lease);
    // The pool tops up for the next job.
    await waitForList<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      until: (items) => items.filter((i) => i.status?.phase === 'Ready').length >= 1,
      description: 'a Ready instance in the pool',
    });
  });
});
