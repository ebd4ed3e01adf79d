import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { CrdManifest } from '../../control-plane/platform-crds/crd-manifest.js';
import { parseCrds } from '../../control-plane/platform-crds/crd-manifest.js';

/**
 * The CRDs as each release shipped them, under crds/released/<version>/, recorded by
 * `npm run crds:record-release` (docs/reference/api-compatibility.md#recording-a-release).
 */
export const RELEASED_FOLDER = path.join('crds', 'released');

const HEADER = (version: string): string =>
  `# The CRD as release ${version} shipped it, recorded by \`npm run crds:record-release\`: do not edit.\n`;

/** The CRD files crds/kustomization.yaml installs, in its order. */
export function crdFiles(root: string): string[] {
  const kustomization = parse(
    readFileSync(path.join(root, 'crds', 'kustomization.yaml'), 'utf8'),
  ) as {
    resources?: unknown;
  };
  const resources = Array.isArray(kustomization.resources) ? kustomization.resources : [];
  return resources.filter((r): r is string => typeof r === 'string' && /\.ya?ml$/.test(r));
}

function readCrds(folder: string, files: readonly string[]): CrdManifest[] {
  return files.flatMap((f) => parseCrds(readFileSync(path.join(folder, f), 'utf8')));
}

/** The CRDs in crds/ now. */
export function currentCrds(root: string): CrdManifest[] {
  return readCrds(path.join(root, 'crds'), crdFiles(root));
}

/** Orders release versions (x.y.z, a pre-release after a hyphen sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string): [number[], string] => {
    const [core = '', pre = ''] = v.split(/-(.*)/s);
    return [core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre];
  };
  const [[ca, pa], [cb, pb]] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(ca.length, cb.length); i++) {
    const d = (ca[i] ?? 0) - (cb[i] ?? 0);
    if (d !== 0) return d;
  }
  if (pa === pb) return 0;
  if (pa === '' || pb === '') return pa === '' ? 1 : -1;
  return pa < pb ? -1 : 1;
}

/** The last recorded release and its CRDs; undefined when none is recorded. */
export function lastRelease(root: string): { version: string; crds: CrdManifest[] } | undefined {
  const folder = path.join(root, RELEASED_FOLDER);
  if (!existsSync(folder)) return undefined;
  const versions = readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort(compareVersions);
  const version = versions.at(-1);
  if (version === undefined) return undefined;
  const files = readdirSync(path.join(folder, version))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  return { version, crds: readCrds(path.join(folder, version), files) };
}

/** What a release was recorded from: crds/released/<version>/release.json. */
export interface ReleaseRecord {
  version: string;
  /** The commit whose tree is the release: its CRDs, its operator (the upgrade test builds it). */
  commit: string;
}

export const RELEASE_RECORD = 'release.json';

/** The record of a release; an error that names the file when it is missing or malformed. */
export function readReleaseRecord(root: string, version: string): ReleaseRecord {
  const file = path.join(RELEASED_FOLDER, version, RELEASE_RECORD);
  const record = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Partial<ReleaseRecord>;
  if (record.version !== version || !/^[0-9a-f]{40}$/.test(record.commit ?? ''))
    throw new Error(`${file} must hold {"version": "${version}", "commit": "<40 hex digits>"}`);
  return { version, commit: record.commit! };
}

/**
 * Copies the CRDs of crds/ to crds/released/<version>/, with the commit they were recorded from
 * in release.json; a version already recorded is never written again, so the baseline of a
 * release cannot move with later changes.
 */
export function recordRelease(root: string, version: string, commit: string): string[] {
  if (!/^[0-9a-f]{40}$/.test(commit))
    throw new Error(`commit ${JSON.stringify(commit)} is not a full commit hash`);
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version))
    throw new Error(`version ${JSON.stringify(version)} is not x.y.z (package.json "version")`);
  const folder = path.join(root, RELEASED_FOLDER, version);
  if (existsSync(folder))
    throw new Error(
      `${path.relative(root, folder)} exists: release ${version} is recorded already; raise package.json "version" first`,
    );
  mkdirSync(folder, { recursive: true });
  const written = crdFiles(root).map((file) => {
    const target = path.join(folder, file);
    writeFileSync(target, HEADER(version) + readFileSync(path.join(root, 'crds', file), 'utf8'));
    return path.relative(root, target);
  });
  const record: ReleaseRecord = { version, commit };
  writeFileSync(path.join(folder, RELEASE_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  return [...written, path.join(RELEASED_FOLDER, version, RELEASE_RECORD)];
}

/**
 * What keeps the release of `version` from being the baseline of the next: not recorded, or
 * recorded from other CRDs than crds/ holds now. Empty when the record is crds/ as it is.
 */
export function unrecordedDifferences(root: string, version: string): string[] {
  const folder = path.join(RELEASED_FOLDER, version);
  if (!existsSync(path.join(root, folder)))
    return [`${folder} does not exist: run npm run crds:record-release for ${version}`];
  return crdFiles(root).flatMap((file) => {
    const recorded = path.join(root, folder, file);
    if (!existsSync(recorded)) return [`${path.join(folder, file)} is missing`];
    const current = readFileSync(path.join(root, 'crds', file), 'utf8');
    return readFileSync(recorded, 'utf8') === HEADER(version) + current
      ? []
      : [`${path.join(folder, file)} differs from crds/${file}`];
  });
}
