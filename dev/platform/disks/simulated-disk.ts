import { randomBytes } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import type { InstalledMachine } from './vmi-machine.js';

/**
 * What the simulated platform reads from a CRC root disk: the `core` user's authorized_keys, the
 * way a real CRC disk carries the public half of the bundle's id_ecdsa_crc in its filesystem, and,
 * for a disk the simulated build guest installed, the machine it was installed on (the firmware
 * its bootloader is laid out for, the NIC its node was installed behind). A simulated disk holds
 * each as a small record at a fixed offset (inside the first MiB, clear of anything else test
 * disks write there); everything else on the disk is opaque bytes. A guest booted from a copy of
 * the disk accepts exactly those keys, so a clone of the right golden disk is what lets crc-agent
 * log in; and it comes up only on the machine it was installed on (vmi-machine.ts). A disk
 * without the machine record (a downloaded bundle, a fixture) boots on any.
 */
export const AUTHORIZED_KEYS_OFFSET = 64 * 1024;
const MACHINE_OFFSET = 72 * 1024;
const RECORD_BYTES = 4096;
const MAGIC = 'SIMULATED-CRC-DISK authorized_keys\n';
const MACHINE_MAGIC = 'SIMULATED-CRC-DISK installed-on\n';

/** The file name of the disk in a volume, as CDI and bundle-prep write it. */
export const DISK_FILE = 'disk.img';

/** The bytes of one record: its magic line, the body, a NUL. */
function record(magic: string, body: string, what: string): Buffer {
  const bytes = Buffer.from(`${magic}${body}\n\0`);
  if (bytes.length > RECORD_BYTES) throw new Error(`${what} do not fit the disk record`);
  return bytes;
}

function embed(disk: Buffer, offset: number, bytes: Buffer, what: string): void {
  if (disk.length < offset + RECORD_BYTES) throw new Error(`the disk is too small for ${what}`);
  disk.fill(0, offset, offset + RECORD_BYTES);
  bytes.copy(disk, offset);
}

/** Writes the authorized_keys record into a raw disk image held in memory. */
export function embedAuthorizedKeys(disk: Buffer, authorizedKeys: string): void {
  const bytes = record(MAGIC, authorizedKeys.trim(), 'authorized_keys');
  embed(disk, AUTHORIZED_KEYS_OFFSET, bytes, 'an authorized_keys record');
}

/**
 * A small raw disk (random bytes) whose `core` user accepts `authorizedKeys`; with `machine`, a
 * disk installed on that machine.
 */
export async function writeSimulatedDisk(
  file: string,
  authorizedKeys: string,
  machine?: InstalledMachine,
): Promise<void> {
  const disk = randomBytes(2 * AUTHORIZED_KEYS_OFFSET);
  embedAuthorizedKeys(disk, authorizedKeys);
  if (machine) {
    const bytes = record(MACHINE_MAGIC, JSON.stringify(machine), 'the machine');
    embed(disk, MACHINE_OFFSET, bytes, 'a machine record');
  }
  await writeFile(file, disk);
}

/** The body of the record at `offset`; undefined for a disk without it. */
async function readRecord(
  file: string,
  offset: number,
  magic: string,
): Promise<string | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = Buffer.alloc(RECORD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, RECORD_BYTES, offset);
    const text = buffer.subarray(0, bytesRead).toString('latin1');
    if (!text.startsWith(magic)) return undefined;
    const end = text.indexOf('\0');
    return text.slice(magic.length, end < 0 ? undefined : end).trim();
  } finally {
    await handle.close();
  }
}

/** The authorized_keys a disk image carries; undefined for a disk without the record. */
export function readAuthorizedKeys(file: string): Promise<string | undefined> {
  return readRecord(file, AUTHORIZED_KEYS_OFFSET, MAGIC);
}

/** The machine a disk was installed on; undefined for a disk without the record. */
export async function readInstalledMachine(file: string): Promise<InstalledMachine | undefined> {
  const body = await readRecord(file, MACHINE_OFFSET, MACHINE_MAGIC);
  return body ? (JSON.parse(body) as InstalledMachine) : undefined;
}
