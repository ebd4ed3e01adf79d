import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { guestclusterCacheDir } from '../binaries.js';
import { withCacheLock } from '../cache-lock.js';
import { ControlPlaneError } from '../errors.js';
import { removeAbandonedWorkDirs } from '../go-build.js';
import type { CrdManifest } from './crd-manifest.js';

/** The setting that selects stand-ins for the proxy-served kinds (see platform-crds.ts). */
export const PLATFORM_CRDS_ENV = 'GUESTCLUSTER_PLATFORM_CRDS';

/** A source of real CRDs, obtained once per version and cached outside the repository. */
export interface CrdSource {
  /** The cache key: what it is and its version (`kubevirt-v1.6.0`). */
  key: string;
  /** For people: `KubeVirt v1.6.0 (kubevirt.io/kubevirt)`. */
  label: string;
  /** Obtains the CRDs, working in a fresh folder of its own. */
  produce(workDir: string, log: (message: string) => void): Promise<CrdManifest[]>;
}

export interface CrdCacheOptions {
  log?: (message: string) => void;
  /** Default: `platform-crds` in the project's cache folder. */
  cacheDir?: string;
}

export function platformCrdCacheDir(): string {
  return path.join(guestclusterCacheDir(), 'platform-crds');
}

async function readCached(file: string): Promise<CrdManifest[] | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CrdManifest[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The source's CRDs from the cache, produced first when they are not there. One caller produces
 * at a time (a second first run waits for the first and reads what it wrote); each works in a
 * folder of its own, and the result appears by an atomic rename, whole or not at all.
 */
export async function cachedCrds(
  source: CrdSource,
  options: CrdCacheOptions = {},
): Promise<CrdManifest[]> {
  const log = options.log ?? ((): void => undefined);
  const dir = options.cacheDir ?? platformCrdCacheDir();
  const file = path.join(dir, `${source.key}.json`);
  const cached = await readCached(file);
  if (cached) return cached;
  return withCacheLock(
    path.join(dir, `${source.key}.lock`),
    async () => {
      const written = await readCached(file);
      if (written) return written;
      log(`Obtaining the CRDs of ${source.label} (first run only)`);
      await removeAbandonedWorkDirs(dir, 'work-');
      const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
      const workDir = path.join(dir, `work-${source.key}-${suffix}`);
      await mkdir(workDir);
      try {
        const crds = await source.produce(workDir, log).catch((error: unknown) => {
          throw new ControlPlaneError(
            `Could not obtain the CRDs of ${source.label}: ${(error as Error).message}. ` +
              `They come from the Go module proxy with the go command; without either, set ${PLATFORM_CRDS_ENV}=stand-ins.`,
          );
        });
        const partial = `${file}.${suffix}`;
        await writeFile(partial, JSON.stringify(crds));
        await rename(partial, file);
        return crds;
      } finally {
        await rm(workDir, { recursive: true, force: true });
      }
    },
    (pid) => log(`Waiting for process ${pid}, which is obtaining the CRDs of ${source.label}`),
  );
}
