import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { isAlive } from './state-dir.js';

/** A dead holder leaves no event behind: a waiter looks at its PID this often. */
const HOLDER_CHECK_MS = 1000;

interface Holder {
  pid: number;
  token: string;
}

async function readHolder(lockFile: string): Promise<Holder | undefined> {
  const content = await readFile(lockFile, 'utf8').catch(() => undefined);
  if (content === undefined) return undefined;
  const [pid, token] = content.split(' ');
  return { pid: Number.parseInt(pid ?? '', 10), token: token ?? '' };
}

/** Resolves once the lock file is gone, its holder has died, or after HOLDER_CHECK_MS. */
function released(lockFile: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(path.dirname(lockFile), (_event, name) => {
      if (name === path.basename(lockFile)) done();
    });
    watcher.once('error', done);
    const timer = setTimeout(done, HOLDER_CHECK_MS);
    function done(): void {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
  });
}

/**
 * Runs `work` holding an exclusive lock shared by every process (and every caller in this one), so
 * that two first runs of the local control plane do not build into each other's way: the second
 * waits for the first, and `work` then finds the first one's result in the cache. The lock is a
 * file created exclusively that names its holder's PID; a holder that died (a killed build) leaves
 * it behind, and the next caller takes it over. Work that is placed into the cache by an atomic
 * rename stays correct even should two callers ever hold it at once.
 */
export async function withCacheLock<T>(
  lockFile: string,
  work: () => Promise<T>,
  onWait: (holderPid: number) => void = () => undefined,
): Promise<T> {
  await mkdir(path.dirname(lockFile), { recursive: true });
  const token = randomBytes(8).toString('hex');
  let told = false;
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx');
      await handle.writeFile(`${process.pid} ${token}`);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockFile);
    if (holder && Number.isInteger(holder.pid) && !isAlive(holder.pid)) {
      await rm(lockFile, { force: true });
      continue;
    }
    if (holder && !told) {
      told = true;
      onWait(holder.pid);
    }
    await released(lockFile);
  }
  try {
    return await work();
  } finally {
    if ((await readHolder(lockFile))?.token === token) await rm(lockFile, { force: true });
  }
}
