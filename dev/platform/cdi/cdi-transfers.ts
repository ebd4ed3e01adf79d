import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Condition } from '../host/platform-kinds.js';
import { DISK_FILE, writeSimulatedDisk } from '../disks/simulated-disk.js';

type Wanted = Omit<Condition, 'lastTransitionTime'>;

/** The DataVolume conditions CDI reports, by the state of the claim and of its transfer. */
export const boundCondition = (claim: string, ok: boolean): Wanted =>
  ok
    ? { type: 'Bound', status: 'True', reason: 'Bound', message: `PVC ${claim} Bound` }
    : { type: 'Bound', status: 'False', reason: 'Pending', message: `PVC ${claim} Pending` };
export const ready = (ok: boolean, reason: string): Wanted => ({
  type: 'Ready',
  status: ok ? 'True' : 'False',
  reason,
});
export const running = (status: 'True' | 'False', reason: string, message = ''): Wanted => ({
  type: 'Running',
  status,
  reason,
  message,
});

/** Whether an import URL points at a test server on this host (which the importer then reads). */
function isLocal(url: string): boolean {
  try {
    const { hostname, protocol } = new URL(url);
    return protocol === 'http:' && (hostname === '127.0.0.1' || hostname === 'localhost');
  } catch {
    return false;
  }
}

/** The cloner's copy of the source claim's volume; the error CDI would report, if any. */
export async function copyClaim(
  sourceKey: string,
  folder: string,
  volumePath: (namespace: string, claim: string) => string | undefined,
): Promise<string | undefined> {
  const [namespace, name] = sourceKey.split('/') as [string, string];
  const source = volumePath(namespace, name);
  if (!source) return `Unable to clone: source PVC ${sourceKey} has no volume on this storage`;
  await mkdir(folder, { recursive: true });
  await cp(source, folder, { recursive: true, force: true });
  return undefined;
}

/**
 * The importer's HTTP import into `disk.img`: read from a local test server, else a small disk
 * that accepts `keys`. The error is the importer's termination message, as CDI words it.
 */
export async function importDisk(
  url: string,
  folder: string,
  keys: () => string,
): Promise<string | undefined> {
  const file = path.join(folder, DISK_FILE);
  if (!isLocal(url)) {
    await writeSimulatedDisk(file, keys());
    return undefined;
  }
  const answer = await fetch(url).catch((error: unknown) => error as Error);
  if (answer instanceof Error) return `Unable to connect to http data source: ${answer.message}`;
  if (!answer.ok)
    return `Unable to connect to http data source: expected status code 200, got ${answer.status}. Status: ${answer.status} ${answer.statusText}`;
  await writeFile(file, Buffer.from(await answer.arrayBuffer()));
  return undefined;
}

/** Stands for a blank DataVolume's sparse image of the requested size: zeros, kept small here. */
export const BLANK_DISK_BYTES = 256 * 1024;

/** The importer's blank source: a zero-filled `disk.img` (CDI writes a sparse raw image). */
export async function writeBlankDisk(folder: string): Promise<string | undefined> {
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, DISK_FILE), Buffer.alloc(BLANK_DISK_BYTES));
  return undefined;
}
