import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const PREFIX = 'guestcluster-cp-';
const OWNER_FILE = 'owner.pid';

/** Whether a process of this PID runs (one of another user's counts too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the state folders of control planes whose owning process is gone (a run that was killed
 * before it could clean up). Their processes died with the owner; only the files remain.
 */
export async function removeStaleStateDirs(): Promise<void> {
  const tmp = os.tmpdir();
  for (const entry of await readdir(tmp)) {
    if (!entry.startsWith(PREFIX)) continue;
    const dir = path.join(tmp, entry);
    const owner = Number.parseInt(
      await readFile(path.join(dir, OWNER_FILE), 'utf8').catch(() => ''),
      10,
    );
    if (Number.isInteger(owner) && isAlive(owner)) continue;
    await rm(dir, { recursive: true, force: true });
  }
}

/** A fresh folder for one control plane's data, certificates and logs, marked with its owner. */
export async function createStateDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), PREFIX));
  await writeFile(path.join(dir, OWNER_FILE), String(process.pid));
  return dir;
}
