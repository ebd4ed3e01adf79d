/**
 * What tenants may make the operator do with CRC bundles, set by the admin (flags, or the
 * Deployment's environment): a pool with crcVersion makes the operator create a cluster-scoped
 * CRCBundle with two large volumes in the operator namespace, for any tenant who can create a
 * pool. These bound it.
 */
export interface CrcBounds {
  /** The CRC versions pools may name in crcVersion; undefined: any. */
  allowedVersions: string[] | undefined;
  /** How many CRCBundles are prepared (downloaded and extracted) at once; the others wait. */
  maxPreparing: number;
  /**
   * How many CRCBundle builds (spec.build) run at once; the others wait. Builds never take a
   * download's slot, and downloads never wait for a build.
   */
  maxBuilding: number;
}

export const ALLOWED_CRC_VERSIONS_SETTING = '--allowed-crc-versions (ALLOWED_CRC_VERSIONS)';
export const MAX_PREPARING_BUNDLES_SETTING = '--max-preparing-bundles (MAX_PREPARING_BUNDLES)';
export const DEFAULT_MAX_PREPARING_BUNDLES = 2;
export const MAX_BUILDING_BUNDLES_SETTING = '--max-building-bundles (MAX_BUILDING_BUNDLES)';
export const DEFAULT_MAX_BUILDING_BUNDLES = 1;

const VERSION = /^\d+\.\d+\.\d+$/;

/** A cap from 1 to 100: the flag, else its variable, else the default. */
function cap(
  setting: string,
  value: string | undefined,
  fallback: number,
  problems: string[],
): number {
  const text = value ?? `${fallback}`;
  const max = Number(text);
  if (!/^\d+$/.test(text) || max < 1 || max > 100)
    problems.push(`${setting} must be an integer from 1 to 100 (got "${text}")`);
  return max;
}

/** Parses the settings (a flag wins over its variable); problems go to `problems`. */
export function crcBounds(
  flags: { allowedCrcVersions?: string; maxPreparingBundles?: string; maxBuildingBundles?: string },
  env: NodeJS.ProcessEnv,
  problems: string[],
): CrcBounds {
  const versionsText = flags.allowedCrcVersions ?? env.ALLOWED_CRC_VERSIONS ?? '';
  const versions = versionsText
    .split(',')
    .map((version) => version.trim())
    .filter(Boolean);
  const bad = versions.filter((version) => !VERSION.test(version));
  if (bad.length > 0)
    problems.push(
      `${ALLOWED_CRC_VERSIONS_SETTING} must list CRC versions such as 2.40.0 or 4.16.0, comma-separated (got "${bad.join(', ')}")`,
    );
  return {
    allowedVersions: versions.length > 0 ? versions : undefined,
    maxPreparing: cap(
      MAX_PREPARING_BUNDLES_SETTING,
      flags.maxPreparingBundles ?? env.MAX_PREPARING_BUNDLES,
      DEFAULT_MAX_PREPARING_BUNDLES,
      problems,
    ),
    maxBuilding: cap(
      MAX_BUILDING_BUNDLES_SETTING,
      flags.maxBuildingBundles ?? env.MAX_BUILDING_BUNDLES,
      DEFAULT_MAX_BUILDING_BUNDLES,
      problems,
    ),
  };
}

/** Why a pool's crcVersion is refused, naming the setting to change; undefined when allowed. */
export function crcVersionRefusal(
  bounds: CrcBounds,
  crcVersion: string | undefined,
): string | undefined {
  if (!crcVersion || !bounds.allowedVersions || bounds.allowedVersions.includes(crcVersion))
    return undefined;
  return `crcVersion ${crcVersion} is not one the operator's admin allows (${ALLOWED_CRC_VERSIONS_SETTING}: ${bounds.allowedVersions.join(', ')}); use one of those, or ask the admin to add ${crcVersion} to that setting`;
}
