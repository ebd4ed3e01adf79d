import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { errorMessage, isSpawnNotFound, MissingToolError } from '../errors.js';

const execFileAsync = promisify(execFile);

export const QEMU_IMG = 'qemu-img';

/**
 * Runs qemu-img and returns its stdout; a failure carries qemu-img's own message, and an image
 * without qemu-img says so (MissingToolError).
 */
export async function qemuImg(args: readonly string[], signal: AbortSignal): Promise<string> {
  try {
    const { stdout } = await execFileAsync(QEMU_IMG, args, {
      signal,
      maxBuffer: 16 * 1024 * 1024,
      encoding: 'utf8',
    });
    return stdout;
  } catch (error) {
    if (isSpawnNotFound(error)) throw new MissingToolError(QEMU_IMG);
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`${QEMU_IMG} ${args[0] ?? ''} failed: ${stderr || errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * Converts a qcow2 image into a raw image at `rawFile` (CDI's filesystem-PVC convention: a true raw
 * /disk.img; a renamed qcow2 does not boot). Writes beside the target first and renames at the
 * end, so a half-written image never carries the final name.
 */
export async function convertToRaw(
  qcow2File: string,
  rawFile: string,
  signal: AbortSignal,
): Promise<void> {
  const partial = `${rawFile}.partial`;
  await rm(rawFile, { force: true });
  await rm(partial, { force: true });
  try {
    await qemuImg(['convert', '-f', 'qcow2', '-O', 'raw', qcow2File, partial], signal);
    await rename(partial, rawFile);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

export interface DiskFacts {
  /** Lowercase hex SHA-256 of the raw image's bytes. */
  sha256: string;
  virtualSizeBytes: number;
}

/** The virtual size qemu-img reports for a raw image (`qemu-img info --output=json`). */
export async function rawVirtualSize(rawFile: string, signal: AbortSignal): Promise<number> {
  const info = JSON.parse(
    await qemuImg(['info', '--output=json', '-f', 'raw', rawFile], signal),
  ) as { 'virtual-size'?: unknown; format?: unknown };
  const size = info['virtual-size'];
  if (info.format !== 'raw' || typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0)
    throw new Error(`qemu-img info did not report a raw image with a virtual size for ${rawFile}`);
  return size;
}

/** SHA-256 of a file, read as a stream. */
export async function sha256File(file: string, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function inspectRawDisk(rawFile: string, signal: AbortSignal): Promise<DiskFacts> {
  const virtualSizeBytes = await rawVirtualSize(rawFile, signal);
  return { sha256: await sha256File(rawFile, signal), virtualSizeBytes };
}
