import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

/** One file of a tar stream sent to a guest: its content, or a local file streamed as it is. */
export interface TarFile {
  /** Relative path inside the target folder. */
  name: string;
  content: Buffer | string | { path: string };
  mode?: number;
}

/**
 * A tar stream of the files, written as it is read: a local file (openshift-install is some
 * hundred MB) is streamed from disk, never held in memory. Names are checked before anything is
 * written.
 */
export function packStream(files: readonly TarFile[]): Readable {
  for (const file of files) safeName(file.name);
  const pack = tar.pack();
  void (async () => {
    for (const file of files) {
      const header = { name: file.name, mode: file.mode ?? 0o644 };
      const { content } = file;
      if (typeof content === 'string' || Buffer.isBuffer(content)) {
        pack.entry(header, Buffer.from(content));
        continue;
      }
      const { size } = await stat(content.path);
      const entry = pack.entry({ ...header, size });
      await pipeline(createReadStream(content.path), entry);
    }
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error as Error));
  return pack as unknown as Readable;
}

/** A tar archive of the files, in memory. */
export async function packFiles(files: readonly TarFile[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of packStream(files)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A member name that stays inside the folder it is unpacked into. */
function safeName(name: string): string {
  const normal = path.posix.normalize(name.replace(/^(\.\/)+/, ''));
  if (!normal || normal === '.' || path.posix.isAbsolute(normal) || normal.startsWith('../'))
    throw new Error(`tar member "${name}" would leave its folder`);
  return normal;
}

/**
 * A writable that unpacks a tar stream into `dir`: regular files and folders only (links,
 * devices are skipped), no member outside `dir`, files 0600 (an install dir holds credentials).
 * `done` settles once every member is written.
 */
export function unpackInto(dir: string): { sink: PassThrough; done: Promise<string[]> } {
  const sink = new PassThrough();
  const extract = tar.extract();
  const done = (async () => {
    const written: string[] = [];
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Only now: an entry the extractor emits before the loop below listens would be lost.
    sink.pipe(extract);
    for await (const entry of extract) {
      const { type, name } = entry.header;
      if (type !== 'file' && type !== 'directory') {
        entry.resume();
        continue;
      }
      const relative = safeName(name === './' ? '.' : name.replace(/\/$/, ''));
      const target = path.join(dir, relative);
      if (type === 'directory') {
        await mkdir(target, { recursive: true, mode: 0o700 });
        entry.resume();
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
      await pipeline(Readable.from(entry), createWriteStream(target, { mode: 0o600 }));
      written.push(relative);
    }
    return written;
  })();
  // A failure to unpack must not leave the unhandled stream pending.
  done.catch(() => sink.destroy());
  return { sink, done };
}
