import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { guestclusterCacheDir } from '../../dev/control-plane/binaries.js';
import { withCacheLock } from '../../dev/control-plane/cache-lock.js';
import { runCommand } from '../../dev/control-plane/run-command.js';

/** A release's tree and build, kept between runs outside the repository. */
export interface ReleaseBuild {
  dir: string;
  /** The release's `guestcluster` CLI (`dist/operator/cli/main.js`). */
  cli: string;
}

const BUILT = '.guestcluster-built';

/** Where the builds of releases are cached, keyed by commit. */
export function releaseCacheDir(commit: string): string {
  return path.join(guestclusterCacheDir(), 'releases', commit);
}

/**
 * The commit must be in the clone's history: a shallow clone (CI's default checkout) lacks it,
 * and the upgrade test would otherwise not know what the release was.
 */
export async function requireCommit(root: string, commit: string): Promise<void> {
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`${commit} is not a full commit hash`);
  try {
    await runCommand('git', ['-C', root, 'cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    throw new Error(
      `Commit ${commit} is not in this clone's history, so the release it records cannot be built: ` +
        `fetch the whole history (git fetch --unshallow), or that commit (git fetch origin ${commit})`,
    );
  }
}

/**
 * The release's dependencies: the checkout's own node_modules when the release's lock file is
 * the same (a link, made again should the checkout's lock have changed since), else its own,
 * installed from its lock file.
 */
async function installDependencies(
  root: string,
  dir: string,
  log: (line: string) => void,
): Promise<void> {
  const modules = path.join(dir, 'node_modules');
  const [ours, theirs] = await Promise.all(
    [root, dir].map((d) => readFile(path.join(d, 'package-lock.json'), 'utf8')),
  );
  const linked = await lstat(modules).then(
    (s) => s.isSymbolicLink(),
    () => false,
  );
  if (ours === theirs) {
    const target = path.join(root, 'node_modules');
    if (linked && (await realpath(modules)) === (await realpath(target))) return;
    await rm(modules, { recursive: true, force: true });
    await symlink(target, modules, 'dir');
    log(`The release's package-lock.json is the checkout's: linked ${target}`);
    return;
  }
  if (!linked && existsSync(path.join(modules, '.package-lock.json'))) return;
  await rm(modules, { recursive: true, force: true });
  log(`The release's package-lock.json differs from the checkout's: npm ci in ${dir}`);
  await runCommand('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir });
}

/** Extracts the commit's tree, installs its dependencies and builds it (tsc), into `dir`. */
async function build(
  root: string,
  commit: string,
  dir: string,
  log: (line: string) => void,
): Promise<void> {
  const tar = `${dir}.tar`;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await runCommand('git', ['-C', root, 'archive', '--format=tar', `--output=${tar}`, commit]);
  await runCommand('tar', ['-xf', tar, '-C', dir]);
  await rm(tar, { force: true });
  await installDependencies(root, dir, log);
  log(`Building the release's operator (tsc -p tsconfig.build.json) in ${dir}`);
  const tsc = path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
  await runCommand(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir });
}

/**
 * The operator as it was at `commit`, built once into the cache and reused: a tree of the commit
 * (git archive), its dependencies, and its tsc build. A build that died halfway is started over.
 */
export async function releaseBuild(
  root: string,
  commit: string,
  log: (line: string) => void = () => undefined,
): Promise<ReleaseBuild> {
  await requireCommit(root, commit);
  const dir = releaseCacheDir(commit);
  const result = { dir, cli: path.join(dir, 'dist', 'operator', 'cli', 'main.js') };
  await withCacheLock(`${dir}.lock`, async () => {
    if (existsSync(path.join(dir, BUILT))) {
      // The build is kept; linked dependencies follow the checkout's node_modules.
      await installDependencies(root, dir, log);
      return;
    }
    const partial = `${dir}.partial`;
    await build(root, commit, partial, log);
    await writeFile(path.join(partial, BUILT), `${commit}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(partial, dir);
  });
  return result;
}
