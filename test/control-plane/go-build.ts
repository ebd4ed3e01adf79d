import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ControlPlaneError } from './errors.js';
import { runCommand } from './run-command.js';
import type { ControlPlaneBinary } from './versions.js';
import { ETCD_VERSION, KUBERNETES_STAGING_VERSION, KUBERNETES_VERSION } from './versions.js';

/** The Go packages (main packages) that build each binary. */
const PACKAGES: Record<ControlPlaneBinary, string> = {
  'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
  'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
  kubectl: 'k8s.io/kubernetes/cmd/kubectl',
  etcd: 'go.etcd.io/etcd/server/v3',
};

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

/**
 * k8s.io/kubernetes points its staging modules (k8s.io/api, k8s.io/client-go, ...) at local folders
 * with `replace` directives, which do not apply to a module that depends on it. We read that list
 * from its go.mod and pin each staging module to the matching published tag instead.
 */
async function kubernetesStagingReplaces(env: NodeJS.ProcessEnv): Promise<string[]> {
  const { stdout } = await runCommand(
    'go',
    ['mod', 'download', '-json', `k8s.io/kubernetes@${KUBERNETES_VERSION}`],
    { env },
  );
  const download = JSON.parse(stdout) as { GoMod?: string; Error?: string };
  if (!download.GoMod)
    throw new ControlPlaneError(
      `go mod download k8s.io/kubernetes@${KUBERNETES_VERSION} failed: ${download.Error ?? stdout}`,
    );
  const goMod = await readFile(download.GoMod, 'utf8');
  const modules = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s+=>\s+\.\/staging\//gm)].map(
    (match) => match[1]!,
  );
  if (modules.length === 0)
    throw new ControlPlaneError(`Found no staging modules in ${download.GoMod}`);
  return modules.map((module) => `replace ${module} => ${module} ${KUBERNETES_STAGING_VERSION}`);
}

interface GoModulePlan {
  name: string;
  requires: string[];
  replaces: (env: NodeJS.ProcessEnv) => Promise<string[]>;
  ldflags: string;
}

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
};

const ETCD_MODULE: GoModulePlan = {
  name: `etcd-${ETCD_VERSION}`,
  requires: [`go.etcd.io/etcd/server/v3 ${ETCD_VERSION}`],
  replaces: () => Promise.resolve([]),
  ldflags: '-s -w',
};

function moduleFor(binary: ControlPlaneBinary): GoModulePlan {
  return binary === 'etcd' ? ETCD_MODULE : KUBERNETES_MODULE;
}

/**
 * Builds the given binaries from Go modules into `binDir`. Each module is built in a generated
 * Go module under `workDir`; the outputs are moved into place only when the build succeeded, so an
 * interrupted build never leaves a half-written binary in the cache.
 */
export async function buildBinaries(
  binaries: readonly ControlPlaneBinary[],
  binDir: string,
  workDir: string,
  log: (message: string) => void,
): Promise<void> {
  const goVersion = await requireGo();
  // CGO is not needed by any of these binaries; disabling it avoids needing a C toolchain.
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  const plans = new Map<GoModulePlan, ControlPlaneBinary[]>();
  for (const binary of binaries)
    plans.set(moduleFor(binary), [...(plans.get(moduleFor(binary)) ?? []), binary]);

  await mkdir(binDir, { recursive: true });
  for (const [plan, targets] of plans) {
    const moduleDir = path.join(workDir, plan.name);
    const outDir = path.join(moduleDir, `out-${process.pid}`);
    log(
      `Building ${targets.join(', ')} from Go modules with ${goVersion} (first run only; this takes several minutes)`,
    );
    await rm(moduleDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    const goMod = [
      'module guestcluster.local/controlplane',
      '',
      'go 1.26.0',
      '',
      ...plan.requires.map((line) => `require ${line}`),
      ...(await plan.replaces(env)),
      '',
    ].join('\n');
    await writeFile(path.join(moduleDir, 'go.mod'), goMod);
    // The `tools` build tag keeps this file out of builds; `go mod tidy` still resolves its imports.
    const toolsGo = `//go:build tools\n\npackage tools\n\nimport (\n${targets.map((t) => `\t_ "${PACKAGES[t]}"\n`).join('')})\n`;
    await writeFile(path.join(moduleDir, 'tools.go'), toolsGo);
    await runCommand('go', ['mod', 'tidy'], { cwd: moduleDir, env });
    await runCommand(
      'go',
      [
        'build',
        '-trimpath',
        '-ldflags',
        plan.ldflags,
        '-o',
        `${outDir}/`,
        ...targets.map((t) => PACKAGES[t]),
      ],
      {
        cwd: moduleDir,
        env,
      },
    );
    for (const target of targets) {
      // etcd's main package is its module root, so `go build` names the binary after the module.
      const built = path.join(outDir, target === 'etcd' ? 'server' : target);
      await rename(built, path.join(binDir, target));
    }
    await rm(moduleDir, { recursive: true, force: true });
  }
}
