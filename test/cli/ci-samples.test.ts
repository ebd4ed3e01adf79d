import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseAllDocuments } from 'yaml';
import type { ClusterInstance, ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitForList } from '../../dev/support/wait-for.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';
import { hcpPool } from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { testEnv } from '../support/test-env.js';
import type { Finished } from './cli-run.js';
import { ciKubeconfig, installedCli, leaseGone, run } from './cli-run.js';

/**
 * The shipped CI samples, run the way their CI systems run them: the Tekton Tasks' step scripts
 * (samples/tekton/lease-task.yaml) with Tekton's variables substituted, and the .gitlab-ci.yml
 * job of docs/ci/gitlab.md with GitLab's variables, against the simulated platform with the
 * operator (an hcp pool: its guests share one guest API, reached through the router).
 */
const world = useWorld({
  namespace: 'ci-samples',
  enabled: true,
  platform: { hcp: true },
  operator: true,
});
const { ns } = world;
const POOL = 'hcp-pool';

let dir: string;
let managementKubeconfig: string;
/** PATH with guestcluster, kubectl (and `oc`, which kubectl plays here) and Node 24. */
let searchPath: string;

const gone = (name: string): Promise<void> => leaseGone(ns.kubeConfig, ns.name, name);

/** Route hosts have no DNS here: the router is the guests' HTTPS proxy (what DNS is elsewhere). */
const network = (): NodeJS.ProcessEnv => ({
  HTTPS_PROXY: world.platform.router.proxyUrl,
  NO_PROXY: '',
});

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gc-ci-samples-'));
  await createPullSecret(ns.api, ns.name);
  // Two warm guests: one for each CI system's job.
  await ns.api.create(POOLS, hcpPool(ns.name, POOL, { maxSize: 2, warmSpares: 2 }));
  managementKubeconfig = await ciKubeconfig(ns.kubeConfig, ns.name, dir);
  const installed = await installedCli();
  await symlink(testEnv('kubectl'), path.join(installed.bin, 'kubectl'));
  await symlink(testEnv('kubectl'), path.join(installed.bin, 'oc'));
  searchPath = installed.path;
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface TektonStep {
  name: string;
  env?: { name: string; value: string }[];
  script: string;
}

interface TektonObject {
  kind: string;
  metadata: { name: string };
  spec: {
    params?: { name: string; default?: string }[];
    steps?: TektonStep[];
    tasks?: { name: string; taskSpec?: { steps: TektonStep[] } }[];
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

/** Runs one step as Tekton does: its script as an executable file, with the step's env. */
async function runStep(
  step: TektonStep,
  values: Record<string, string>,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Finished> {
  const file = path.join(dir, `${step.name}-${Object.keys(values).length}.sh`);
  await writeFile(file, substitute(step.script, values));
  await chmod(file, 0o755);
  const stepEnv = Object.fromEntries(
    (step.env ?? []).map((e) => [e.name, substitute(e.value, values)]),
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
  const task = (name: string): TektonObject => objects.find((o) => o.metadata.name === name)!;
  /** A Task's parameters: its defaults, overridden by the TaskRun's. */
  const params = (of: TektonObject, given: Record<string, string>): Record<string, string> =>
    Object.fromEntries(
      (of.spec.params ?? []).map((p) => [`params.${p.name}`, given[p.name] ?? p.default ?? '']),
    );

  beforeAll(async () => {
    const text = await readFile(
      path.join(projectRoot(), 'samples', 'tekton', 'lease-task.yaml'),
      'utf8',
    );
    objects = parseAllDocuments(text).map((d) => d.toJS() as TektonObject);
  });

  it('acquire writes a working kubeconfig to the workspace, the Pipeline tests with it, release holds it after a failure and gives it back after a success', async () => {
    const workspace = path.join(dir, 'workspace-guest');
    const management = path.join(dir, 'workspace-management');
    const results = path.join(dir, 'tekton-results');
    for (const folder of [workspace, management, results]) await mkdir(folder, { recursive: true });
    await writeFile(path.join(management, 'kubeconfig'), await readFile(managementKubeconfig));
    const acquire = task('guestcluster-lease-acquire');
    const taskRun = 'e2e-run-7-acquire';
    const acquired = await runStep(acquire.spec.steps![0]!, {
      ...params(acquire, { pool: POOL }),
      'context.taskRun.name': taskRun,
      'context.taskRun.namespace': ns.name,
      'workspaces.kubeconfig.path': workspace,
      'workspaces.management.bound': 'true',
      'workspaces.management.path': management,
      'results.lease-name.path': path.join(results, 'lease-name'),
      'results.kubeconfig.path': path.join(results, 'kubeconfig'),
    });
    expect(acquired.stderr).toContain(`ClusterLease ${taskRun}: Bound`);
    expect(acquired.code).toBe(0);
    expect(await readFile(path.join(results, 'lease-name'), 'utf8')).toBe(taskRun);
    const kubeconfig = path.join(workspace, 'kubeconfig');
    expect(await readFile(path.join(results, 'kubeconfig'), 'utf8')).toBe(kubeconfig);
    expect((await stat(kubeconfig)).mode & 0o777).toBe(0o600);
    const lease = await ns.api.get<ClusterLease>(LEASES, taskRun, ns.name);
    expect(lease.spec.requestedBy).toBe(`Tekton TaskRun ${ns.name}/${taskRun}`);
    expect(lease.status?.phase).toBe('Bound');

    const pipeline = objects.find((o) => o.kind === 'Pipeline')!;
    const e2e = pipeline.spec.tasks!.find((t) => t.name === 'e2e')!.taskSpec!.steps[0]!;
    const tested = await runStep(e2e, { 'workspaces.guest.path': workspace }, network());
    expect(tested).toMatchObject({ code: 0, stderr: '' });
    expect(tested.stdout).toMatch(/^NAME\s+VERSION[^\n]*\nversion\s/);

    // The Pipeline's finally, with the Pipeline's $(tasks.status).
    const release = task('guestcluster-lease-release');
    const given = pipeline.spec.finally!.find((t) => t.name === 'release')!.params!;
    expect(given).toEqual(
      expect.arrayContaining([
        { name: 'job-status', value: '$(tasks.status)' },
        { name: 'hold-on-failure', value: '30m' },
      ]),
    );
    const leaseName = await readFile(path.join(results, 'lease-name'), 'utf8');
    const finallyRun = (status: string, diagnostics?: string): Promise<Finished> =>
      runStep(release.spec.steps![0]!, {
        ...params(release, {
          'lease-name': leaseName,
          'job-status': status,
          'hold-on-failure': '30m',
        }),
        'workspaces.management.bound': 'true',
        'workspaces.management.path': management,
        'workspaces.diagnostics.bound': diagnostics ? 'true' : 'false',
        'workspaces.diagnostics.path': diagnostics ?? '',
      });

    // Had the test failed, $(tasks.status) would be Failed: the diagnostics go to the workspace,
    // and the cluster is kept for 30m.
    const diagnostics = path.join(dir, 'workspace-diagnostics');
    await mkdir(diagnostics);
    const failed = await finallyRun('Failed', diagnostics);
    expect(failed.code).toBe(0);
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
});

describe('the .gitlab-ci.yml job of docs/ci/gitlab.md', () => {
  interface GitLabJob {
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
      // The project's CI/CD variables override the file's.
      GUESTCLUSTER_NAMESPACE: ns.name,
      // A CI/CD variable of type File: GitLab writes its content to a file and passes the path.
      GUESTCLUSTER_MANAGEMENT: managementKubeconfig,
      ...network(),
    };
    const lease = `gitlab-${PREDEFINED.CI_JOB_ID}`;
    const job = await shell([...file.e2e.before_script, ...file.e2e.script], jobEnv, project);
    expect(job.stderr).toContain(`ClusterLease ${lease}: Bound`);
    expect(job.code).toBe(0);
    expect(job.stdout.split('\n')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^openshift-config\s+Active/)]),
    );
    const bound = await ns.api.get<ClusterLease>(LEASES, lease, ns.name);
    expect(bound.spec.requestedBy).toBe(
      `GitLab group/app pipeline 501 job 90210 (e2e) by dev1 ${PREDEFINED.CI_JOB_URL}`,
    );
    expect(bound.spec.ocpVersion).toBe('4.16');

    // Say a later line of the script failed: GitLab runs after_script with CI_JOB_STATUS=failed.
    const after = await shell(
      file.e2e.after_script,
      { ...jobEnv, CI_JOB_STATUS: 'failed' },
      project,
    );
    expect(after.code).toBe(0);
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

    // Done debugging: a plain release ends the hold.
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
