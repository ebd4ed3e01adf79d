import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResourceSample } from './resource-trend.js';

/**
 * Copies every component's log (`*.log`: the operator's, the apiserver's, etcd's, …) out of the
 * state folder before it is removed, when SOAK_LOG_DIR names a folder: a violation's story is
 * in the operator's log. Returns the folder, or undefined when none was asked for.
 */
export async function keepLogs(
  stateDir: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const target = env.SOAK_LOG_DIR?.trim();
  if (!target) return undefined;
  await mkdir(target, { recursive: true });
  for (const file of await readdir(stateDir))
    if (file.endsWith('.log')) await copyFile(path.join(stateDir, file), path.join(target, file));
  return path.resolve(target);
}

/** The operator's RSS and descriptor readings as JSON (`resource-samples.json`), when SOAK_LOG_DIR is set. */
export async function keepSamples(
  samples: readonly ResourceSample[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const target = env.SOAK_LOG_DIR?.trim();
  if (!target) return;
  await mkdir(target, { recursive: true });
  await writeFile(path.join(target, 'resource-samples.json'), JSON.stringify(samples));
}
