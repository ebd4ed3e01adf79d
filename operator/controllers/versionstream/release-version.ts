/**
 * OpenShift release versions: SemVer 2.0 (`4.19.7`, `4.20.0-rc.3`, `4.20.0-ec.1`), compared by
 * SemVer precedence. Small enough to keep here rather than add a runtime dependency (ADR 0029).
 */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  /** Dot-separated pre-release identifiers (`rc.3` → ['rc', '3']); empty for a release. */
  prerelease: string[];
}

const VERSION =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

/** The version, or undefined when `text` is not a SemVer 2.0 version. */
export function parseReleaseVersion(text: string): ReleaseVersion | undefined {
  const match = VERSION.exec(text);
  if (!match) return undefined;
  return {
    major: Number(match[1]),
    minor: Number(match[2]),
    patch: Number(match[3]),
    prerelease: match[4] ? match[4].split('.') : [],
  };
}

function compareIdentifiers(a: string, b: string): number {
  const numericA = /^\d+$/.test(a);
  const numericB = /^\d+$/.test(b);
  if (numericA && numericB) return Number(a) - Number(b);
  // Numeric identifiers have lower precedence than alphanumeric ones.
  if (numericA !== numericB) return numericA ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative when a < b, positive when a > b, 0 when equal in precedence (build metadata ignored). */
export function compareReleaseVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  // A release is newer than its pre-releases.
  if (a.prerelease.length === 0 || b.prerelease.length === 0)
    return Math.sign(b.prerelease.length - a.prerelease.length);
  for (let i = 0; i < Math.min(a.prerelease.length, b.prerelease.length); i++) {
    const order = compareIdentifiers(a.prerelease[i]!, b.prerelease[i]!);
    if (order !== 0) return Math.sign(order);
  }
  return Math.sign(a.prerelease.length - b.prerelease.length);
}

/** Compares two version strings; one that does not parse sorts below every version. */
export function compareVersionText(a: string, b: string): number {
  const va = parseReleaseVersion(a);
  const vb = parseReleaseVersion(b);
  if (!va || !vb) return va ? 1 : vb ? -1 : 0;
  return compareReleaseVersions(va, vb);
}

/** Whether `version` is a version of `minor` ("4.19"): 4.19.0, 4.19.7, 4.19.0-rc.1. */
export function inMinor(version: string, minor: string): boolean {
  const parsed = parseReleaseVersion(version);
  return parsed !== undefined && `${parsed.major}.${parsed.minor}` === minor;
}

/** The newest of `versions` by SemVer precedence; undefined for none. */
export function newestVersion(versions: readonly string[]): string | undefined {
  return [...versions].sort(compareVersionText).at(-1);
}
