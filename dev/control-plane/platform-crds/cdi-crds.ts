import { chmod, cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { guestclusterCacheDir } from '../binaries.js';
import type { GoModulePlan } from '../go-build.js';
import { downloadGoModule, ensureBinaries } from '../go-build.js';
import { runCommand } from '../run-command.js';
import { CDI_API_VERSION, CONTROLLER_TOOLS_VERSION } from '../versions.js';
import type { CrdSource } from './crd-cache.js';
import type { CrdManifest } from './crd-manifest.js';
import { parseCrds, pick } from './crd-manifest.js';

const MODULE = 'kubevirt.io/containerized-data-importer-api';

const CONTROLLER_TOOLS: GoModulePlan = {
  name: `controller-tools-${CONTROLLER_TOOLS_VERSION}`,
  requires: [`sigs.k8s.io/controller-tools ${CONTROLLER_TOOLS_VERSION}`],
  replaces: () => Promise.resolve([]),
  ldflags: '-s -w',
  packages: { 'controller-gen': 'sigs.k8s.io/controller-tools/cmd/controller-gen' },
};

/** controller-gen, built once into the cache like the control plane's binaries. */
async function controllerGen(log: (message: string) => void): Promise<string> {
  const base = path.join(guestclusterCacheDir(), 'tools');
  const binDir = path.join(
    base,
    `controller-tools-${CONTROLLER_TOOLS_VERSION}-${process.platform}-${process.arch}`,
    'bin',
  );
  await ensureBinaries(['controller-gen'], binDir, path.join(base, 'build'), log, [
    CONTROLLER_TOOLS,
  ]);
  return path.join(binDir, 'controller-gen');
}

/** The module cache keeps sources read-only; `go` may need to write go.sum in the copy. */
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(file);
    else await chmod(file, 0o644);
  }
}

/**
 * DataVolume, generated from CDI's API module with controller-gen, CDI's own recipe (the main CDI
 * module, which holds the generated files, is not served by the module proxy).
 */
export const CDI_CRDS: CrdSource = {
  key: `cdi-api-${CDI_API_VERSION}-controller-gen-${CONTROLLER_TOOLS_VERSION}`,
  label: `CDI ${CDI_API_VERSION} (${MODULE}, controller-gen ${CONTROLLER_TOOLS_VERSION})`,
  async produce(workDir, log): Promise<CrdManifest[]> {
    const generator = await controllerGen(log);
    const sources = path.join(workDir, 'src');
    await cp(await downloadGoModule(MODULE, CDI_API_VERSION), sources, { recursive: true });
    await makeWritable(sources);
    const out = path.join(workDir, 'out');
    await runCommand(
      generator,
      ['crd:crdVersions=v1', 'paths=./pkg/apis/core/...', `output:crd:dir=${out}`],
      { cwd: sources, env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' } },
    );
    const crds = parseCrds(
      await readFile(path.join(out, 'cdi.kubevirt.io_datavolumes.yaml'), 'utf8'),
    );
    const dataVolumes = pick(crds, 'datavolumes.cdi.kubevirt.io', this.label);
    dataVolumes.metadata.annotations = {
      ...dataVolumes.metadata.annotations,
      'guestcluster.opdev.io/source': `${MODULE}@${CDI_API_VERSION}`,
    };
    return [dataVolumes];
  },
};
