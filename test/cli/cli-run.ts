import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AdminAccess } from '../../dev/support/admin-access.js';
import { parseAllDocuments } from 'yaml';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { LEASES } from '../../client/api/resources.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { kubectl } from '../support/kubectl.js';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  /** Resolves once stderr (the progress log) contains `text`. */
  told(text: string): Promise<void>;
  signal(name: NodeJS.Signals): void;
  done: Promise<Finished>;
}

/**
 * A folder to put first on PATH, as an installation would: `guestcluster` and
 * `kubectl-guestcluster` linked to the built CLI, made executable as npm does for a package's
 * bin entries, and the Node it runs on (24, this process's; the machine's own may be older).
 */
export async function installedCli(): Promise<{ bin: string; path: string }> {
  const bin = await mkdtemp(path.join(os.tmpdir(), 'gc-cli-bin-'));
  const main = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
  await chmod(main, 0o755);
  for (const name of ['guestcluster', 'kubectl-guestcluster'])
    await symlink(main, path.join(bin, name));
  return {
    bin,
    path: [bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
  };
}

/** Runs `program` with `args`; resolves with its exit code and output, whatever the code. */
export function run(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Running {
  const child = spawn(program, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const w of waiting.filter((w) => stderr.includes(w.text))) w.resolve();
  });
  const done = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    told: (text) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiting.push({ text, resolve });
            void done.then((f) =>
              reject(new Error(`exited (${f.code}) without "${text}":\n${f.stderr}`)),
            );
          }),
    signal: (name) => child.kill(name),
    done,
  };
}

/**
 * The documented CI identity (samples/ci-identity-rbac.yaml) in `namespace`, and a kubeconfig
 * file with a token of it: what a CI system is handed for the management cluster.
 */
export async function ciKubeconfig(
  admin: AdminAccess,
  namespace: string,
  dir: string,
): Promise<string> {
  const text = await readFile(path.join(projectRoot(), 'samples', 'ci-identity-rbac.yaml'), 'utf8');
  const manifest = parseAllDocuments(text)
    .map((document) => document.toString().replaceAll('namespace: ci', `namespace: ${namespace}`))
    .join('---\n');
  await kubectl(['apply', '-f', '-'], manifest);
  const { stdout: token } = await kubectl([
    '-n',
    namespace,
    'create',
    'token',
    'guestcluster-ci',
    '--duration=1h',
  ]);
  const cluster = admin.getCurrentCluster();
  const file = path.join(dir, 'management.kubeconfig');
  await mkdir(dir, { recursive: true });
  await writeFile(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: management, cluster: {server: "' +
        cluster.server +
        '", certificate-authority-data: ' +
        cluster.caData +
        '}}]',
      'users: [{name: ci, user: {token: ' + token.trim() + '}}]',
      'contexts: [{name: ci, context: {cluster: management, user: ci, namespace: ' +
        namespace +
        '}}]',
      'current-context: ci',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

/** Waits until the lease is gone (released: the operator has let go of its instance). */
export async function leaseGone(
  kubeConfig: AdminAccess,
  namespace: string,
  name: string,
): Promise<void> {
  await waitFor<ClusterLease>(kubeConfig, {
    type: LEASES,
    name,
    namespace,
    until: (lease) => lease === undefined,
    description: `ClusterLease ${name} to be gone`,
  });
}
