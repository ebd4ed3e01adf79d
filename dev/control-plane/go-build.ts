import { randomBytes } from 'node:crypto';
import {
  access,
  constants,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { withCacheLock } from './cache-lock.js';
import { ControlPlaneError } from './errors.js';
import { runCommand } from './run-command.js';
import { isAlive } from './state-dir.js';
import { ETCD_VERSION, KUBERNETES_STAGING_VERSION, KUBERNETES_VERSION } from './versions.js';

/** Fails with instructions when no Go toolchain is on the PATH. */
export async function requireGo(): Promise<string> {
  try {
    const { stdout } = await runCommand('go', ['version']);
    return stdout.trim();
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no `go` command on the PATH'
        : String(error);
    throw new ControlPlaneError(
      `Cannot build the local control plane: ${reason}. Install Go 1.26 or newer and put it on the PATH, ` +
        'or set KUBEBUILDER_ASSETS to a folder that holds etcd, kube-apiserver, kube-controller-manager and kubectl.',
    );
  }
}

/** What `go mod download -json` says of a module: its unpacked folder, or why there is none. */
export async function downloadGoModule(module: string, version: string): Promise<string> {
  const { stdout } = await runCommand('go', ['mod', 'download', '-json', `${module}@${version}`], {
    env: { ...process.env, GOFLAGS: '-mod=mod' },
  }).catch((error: unknown) => ({
    stdout: String((error as { stdout?: string }).stdout ?? error),
  }));
  let download: { Dir?: string; Error?: string };
  try {
    download = JSON.parse(stdout) as { Dir?: string; Error?: string };
  } catch {
    download = { Error: stdout.trim() };
  }
  if (!download.Dir)
    throw new ControlPlaneError(
      `go mod download ${module}@${version} failed: ${download.Error ?? stdout}`,
    );
  return download.Dir;
}

/**
 * k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/client-go, ...) at local folders
 * with `replace` directives, which do not apply to a module that depends on it. We read that list
 * from its go.mod and pin each staging module to the matching published tag instead.
 */
async function kubernetesStagingReplaces(): Promise<string[]> {
  const dir = await downloadGoModule('k8s.io/kubernetes', KUBERNETES_VERSION);
  const goMod = await readFile(path.join(dir, 'go.mod'), 'utf8');
  const modules = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\//gm)].map(
    (match) => match[1]!,
  );
  if (modules.length === 0)
    throw new ControlPlaneError(`Found no staging modules in ${dir}/go.mod`);
  return modules.map((module) => `replace ${module} => ${module} ${KUBERNETES_STAGING_VERSION}`);
}

/** A generated Go module that requires what `packages` (main packages, by binary name) need. */
export interface GoModulePlan {
  name: string;
  requires: string[];
  replaces: () => Promise<string[]>;
  ldflags: string;
  packages: Record<string, string>;
  /** `go build -tags`, e.g. to leave out parts of a program that a check does not need. */
  tags?: string[];
  /** Go files of our own, by path inside the generated module (GENERATED_MODULE/<path>). */
  sources?: Record<string, string>;
  /**
   * false: skip `go mod tidy`, which fetches every module of every build tag, and let the build
   * fetch only what the chosen tags compile (a tenth of it for promtool without its discoveries).
   */
  tidy?: boolean;
}

/** The module path of the generated module; packages of `sources` live under it. */
export const GENERATED_MODULE = 'guestcluster.local/controlplane';

const KUBERNETES_MODULE: GoModulePlan = {
  name: `kubernetes-${KUBERNETES_VERSION}`,
  requires: [`k8s.io/kubernetes ${KUBERNETES_VERSION}`],
  replaces: kubernetesStagingReplaces,
  // Stamp the version so `kubectl version` and /version report it instead of v0.0.0.
  ldflags: [
    '-s -w',
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    `-X k8s.io/component-base/version.gitMajor=${KUBERNETES_VERSION.split('.')[0]!.slice(1)}`,
    `-X k8s.io/component-base/version.gitMinor=${KUBERNETES_VERSION.split('.')[1]!}`,
    `-X k8s.io/client-go/pkg/version.gitVersion=${KUBERNETES_VERSION}`,
  ].join(' '),
  packages: {
    'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
    'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
    kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  },
};

const ETCD_MODULE: GoModulePlan = {
  name: `etcd-${ETCD_VERSION}`,
  requires: [`go.etcd.io/etcd/server/v3 ${ETCD_VERSION}`],
  replaces: () => Promise.resolve([]),
  ldflags: '-s -w',
  packages: { etcd: 'go.etcd.io/etcd/server/v3' },
};

/** The control plane's binaries and the modules that build them. */
export const CONTROL_PLANE_PLANS: readonly GoModulePlan[] = [KUBERNETES_MODULE, ETCD_MODULE];

/** `go build -o dir/` names a binary after its package, without a major-version suffix. */
function builtName(pkg: string): string {
  const parts = pkg.split('/');
  const last = parts.at(-1)!;
  return /^v\d+$/.test(last) ? parts.at(-2)! : last;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Removes the work folders (`<prefix>…-<pid>-<random>`) of builds whose process is gone. */
export async function removeAbandonedWorkDirs(workDir: string, prefix = ''): Promise<void> {
  for (const entry of await readdir(workDir).catch(() => [])) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number.parseInt(/-(\d+)-[0-9a-f]+$/.exec(entry)?.[1] ?? '', 10);
    if (Number.isInteger(pid) && !isAlive(pid))
      await rm(path.join(workDir, entry), { recursive: true, force: true });
  }
}

/**
 * Makes sure `binDir` holds the given binaries, building the missing ones from Go modules. A lock
 * next to `binDir` lets one caller build at a time: a second first run waits and then finds the
 * binaries the first one built. Each build works in a folder of its own under `workDir`, and its
 * outputs are renamed into place only when the build succeeded, so an interrupted build never
 * leaves a half-written binary in the cache.
 */
export async function ensureBinaries(
  binaries: readonly string[],
  binDir: string,
  workDir: string,
  log: (message: string) => void,
  plans: readonly GoModulePlan[] = CONTROL_PLANE_PLANS,
): Promise<void> {
  const lockFile = path.join(path.dirname(binDir), 'build.lock');
  await withCacheLock(
    lockFile,
    async () => {
      const missing: string[] = [];
      for (const binary of binaries)
        if (!(await isExecutable(path.join(binDir, binary)))) missing.push(binary);
      if (missing.length === 0) return;
      await mkdir(workDir, { recursive: true });
      await removeAbandonedWorkDirs(workDir);
      await buildBinaries(missing, binDir, workDir, log, plans);
    },
    (pid) => log(`Waiting for process ${pid}, which is building into ${binDir}`),
  );
}

async function buildBinaries(
  binaries: readonly string[],
  binDir: string,
  workDir: string,
  log: (message: string) => void,
  plans: readonly GoModulePlan[],
): Promise<void> {
  const goVersion = await requireGo();
  // CGO is not needed by any of these binaries; disabling it avoids needing a C toolchain.
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  const byPlan = new Map<GoModulePlan, string[]>();
  for (const binary of binaries) {
    const plan = plans.find((p) => binary in p.packages);
    if (!plan) throw new ControlPlaneError(`No Go module builds ${binary}`);
    byPlan.set(plan, [...(byPlan.get(plan) ?? []), binary]);
  }
  await mkdir(binDir, { recursive: true });
  for (const [plan, targets] of byPlan) {
    const moduleDir = path.join(
      workDir,
      `${plan.name}-${process.pid}-${randomBytes(4).toString('hex')}`,
    );
    const outDir = path.join(moduleDir, 'out');
    log(
      `Building ${targets.join(', ')} from Go modules with ${goVersion} (first run only; this may take several minutes)`,
    );
    try {
      await mkdir(outDir, { recursive: true });
      const goMod = [
        `module ${GENERATED_MODULE}`,
        '',
        'go 1.26.0',
        '',
        ...plan.requires.map((line) => `require ${line}`),
        ...(await plan.replaces()),
        '',
      ].join('\n');
      await writeFile(path.join(moduleDir, 'go.mod'), goMod);
      const packages = targets.map((t) => plan.packages[t]!);
      // The `tools` build tag keeps this file out of builds; `go mod tidy` still resolves its imports.
      const toolsGo = `//go:build tools\n\npackage tools\n\nimport (\n${packages.map((p) => `\t_ "${p}"\n`).join('')})\n`;
      await writeFile(path.join(moduleDir, 'tools.go'), toolsGo);
      for (const [file, content] of Object.entries(plan.sources ?? {})) {
        await mkdir(path.dirname(path.join(moduleDir, file)), { recursive: true });
        await writeFile(path.join(moduleDir, file), content);
      }
      if (plan.tidy !== false) await runCommand('go', ['mod', 'tidy'], { cwd: moduleDir, env });
      await runCommand(
        'go',
        [
          'build',
          '-trimpath',
          ...(plan.tags ? ['-tags', plan.tags.join(',')] : []),
          '-ldflags',
          plan.ldflags,
          '-o',
          `${outDir}/`,
          ...packages,
        ],
        { cwd: moduleDir, env },
      );
      for (const target of targets)
        await rename(
          path.join(outDir, builtName(plan.packages[target]!)),
          path.join(binDir, target),
        );
    } finally {
      await rm(moduleDir, { recursive: true, force: true });
    }
  }
}
