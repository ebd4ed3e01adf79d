import { randomBytes } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';

/**
 * What the simulated platform reads from a CRC root disk: the `core` user's authorized_keys, the
 * way a real CRC disk carries the public half of the bundle's id_ecdsa_crc in its filesystem. A
 * simulated disk holds them as a small record at a fixed offset (inside the first MiB, clear of
 * anything else test disks write there); everything else on the disk is opaque bytes. A guest
 * booted from a copy of the disk accepts exactly those keys, so a clone of the right golden disk
 * is what lets crc-agent log in.
 */
export const AUTHORIZED_KEYS_OFFSET = 64 * 1024;
const RECORD_BYTES = 4096;
const MAGIC = 'SIMULATED-CRC-DISK authorized_keys\n';

/** The file name of the disk in a volume, as CDI and bundle-prep write it. */
export const DISK_FILE = 'disk.img';

/** The bytes of the record that says which keys the disk's `core` user accepts. */
function record(authorizedKeys: string): Buffer {
  const body = Buffer.from(`${MAGIC}${authorizedKeys.trim()}\n\0`);
  if (body.length > RECORD_BYTES) throw new Error('authorized_keys do not fit the disk record');
  return body;
}

/** Writes the authorized_keys record into a raw disk image held in memory. */
export function embedAuthorizedKeys(disk: Buffer, authorizedKeys: string): void {
  if (disk.length < AUTHORIZED_KEYS_OFFSET + RECORD_BYTES)
    throw new Error('the disk is too small for an authorized_keys record');
  disk.fill(0, AUTHORIZED_KEYS_OFFSET, AUTHORIZED_KEYS_OFFSET + RECORD_BYTES);
  record(authorizedKeys).copy(disk, AUTHORIZED_KEYS_OFFSET);
}

/** A small raw disk (random bytes) whose `core` user accepts `authorizedKeys`. */
export async function writeSimulatedDisk(file: string, authorizedKeys: string): Promise<void> {
  const disk = randomBytes(2 * AUTHORIZED_KEYS_OFFSET);
  embedAuthorizedKeys(disk, authorizedKeys);
  await writeFile(file, disk);
}

/** The authorized_keys a disk image carries; undefined for a disk without the record. */
export async function readAuthorizedKeys(file: string): Promise<string | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(RECORD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, RECORD_BYTES, AUTHORIZED_KEYS_OFFSET);
    const text = buffer.subarray(0, bytesRead).toString('latin1');
    if (!text.startsWith(MAGIC)) return undefined;
    const end = text.indexOf('\0');
    return text.slice(MAGIC.length, end < 0 ? undefined : end).trim();
  } finally {
    await handle.close();
  }
}
