import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

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
