import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { chmod, lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Files that hold credentials (the guest kubeconfig): created 0600 before a byte is in them, in
 * folders 0700, never through a symbolic link (docs/adr/0036-one-job-owns-a-lease-and-its-files.md).
 */

/** No O_NOFOLLOW on Windows, where there are no such links to plant. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;

/** Who runs this; undefined on Windows, which has no such owners. */
const ownUid = (): number | undefined => process.geteuid?.();

function checkOwner(where: string, info: Stats, refusal: string): void {
  const uid = ownUid();
  if (uid !== undefined && info.uid !== uid)
    throw new Error(`${where} belongs to user ${info.uid}, not to this one (${uid}); ${refusal}`);
}

/**
 * A new file, 0600 from the start: it must not exist yet, not even as a link (O_EXCL), and the
 * mode is set on the open file, whatever the umask, before anything is written to it.
 */
export async function createPrivateFile(file: string): Promise<FileHandle> {
  const handle = await open(file, CREATE_NEW, 0o600);
  try {
    await handle.chmod(0o600);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A folder of the writer's own: made 0700, or one made before that is a real folder of ours. */
async function ownFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const info = await lstat(dir);
  if (info.isSymbolicLink())
    throw new Error(`${dir} is a symbolic link, not a folder; refusing to follow it`);
  if (!info.isDirectory()) throw new Error(`${dir} is not a folder; refusing to use it`);
  checkOwner(dir, info, 'refusing to use it');
  if ((info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

/** The deepest folder above `folder` that exists: the caller's, followed as it is. */
async function existingAncestor(folder: string): Promise<string> {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    try {
      await stat(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || path.dirname(dir) === dir)
        throw error;
    }
  }
}

/** Whether `dir` is `base` or inside it. */
const within = (base: string, dir: string): boolean => {
  const relative = path.relative(base, dir);
  return !relative.startsWith('..') && !path.isAbsolute(relative);
};

/**
 * Makes the folders between `root` (trusted as it is) and `folder`, each the writer's own. Without
 * a root, or one that does not exist, the deepest folder that exists is the root.
 */
async function ownFolders(root: string | undefined, folder: string): Promise<void> {
  const ancestor = await existingAncestor(folder);
  let base = root && within(path.resolve(root), ancestor) ? path.resolve(root) : ancestor;
  const relative = path.relative(base, folder);
  for (const part of relative ? relative.split(path.sep) : []) {
    base = path.join(base, part);
    await ownFolder(base);
  }
}

/** What is at the path may be replaced: nothing, or a regular file of ours. */
async function checkTarget(file: string): Promise<void> {
  let info: Stats;
  try {
    info = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (info.isSymbolicLink())
    throw new Error(
      `${file} is a symbolic link; refusing to follow it (remove it, or choose another path)`,
    );
  if (!info.isFile()) throw new Error(`${file} is not a regular file; refusing to replace it`);
  checkOwner(file, info, 'refusing to replace it');
}

/**
 * Writes `content` to `file`, which only its owner can read, in folders only its owner can
 * enter. `root` is the folder the caller trusts (RUNNER_TEMP for the Action's default path): the
 * folders below it are the writer's own and must not be links or anyone else's. Without it, the
 * folders that exist are the caller's. The content goes into a new file in the same folder that
 * is then renamed over the path: an earlier file (ours, maybe readable by others) never gets it,
 * and a link planted at the path meanwhile is replaced, never followed.
 */
export async function writePrivateFile(
  file: string,
  content: string,
  root?: string,
): Promise<void> {
  const target = path.resolve(file);
  const folder = path.dirname(target);
  await ownFolders(root, folder);
  await checkTarget(target);
  const temporary = path.join(
    folder,
    `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await createPrivateFile(temporary);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function removeFile(file: string): Promise<void> {
  await rm(file, { force: true });
}
