import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface HeapGroup {
  /** The constructor's name, or the kind of node in brackets: (string), (code), (array)… */
  name: string;
  count: number;
  selfMb: number;
}

interface SnapshotMeta {
  node_fields: string[];
  node_types: [string[], ...unknown[]];
}

const MB = 1024 * 1024;
/** The kinds of node grouped by their kind, not their name (which is their content or a label). */
const BY_KIND = new Set(['string', 'concatenated string', 'sliced string', 'code', 'array']);

/** The numbers of a JSON array of integers, from `start` (just after its `[`) to its `]`. */
function integers(buffer: Buffer, start: number): Float64Array {
  const end = buffer.indexOf(']', start);
  const values = new Float64Array(Math.ceil((end - start) / 2));
  let count = 0;
  let value = 0;
  let inNumber = false;
  for (let i = start; i < end; i++) {
    const byte = buffer[i]!;
    if (byte >= 48 && byte <= 57) {
      value = value * 10 + (byte - 48);
      inNumber = true;
    } else if (inNumber) {
      values[count++] = value;
      value = 0;
      inNumber = false;
    }
  }
  if (inNumber) values[count++] = value;
  return values.subarray(0, count);
}

/**
 * The largest groups of a V8 heap snapshot (`--heapsnapshot-signal`) by self size: objects by
 * constructor, strings, code and arrays by kind. Reads the nodes without parsing the whole file
 * as one JSON document (which may be larger than V8's longest string).
 */
export async function summariseHeapSnapshot(file: string, top = 15): Promise<HeapGroup[]> {
  const buffer = await readFile(file);
  const nodesAt = buffer.indexOf('"nodes":[');
  const stringsAt = buffer.indexOf('"strings":[');
  const header = JSON.parse(`${buffer.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`) as {
    snapshot: { meta: SnapshotMeta };
  };
  const strings = JSON.parse(
    buffer.toString('utf8', stringsAt + '"strings":'.length, buffer.lastIndexOf('}')),
  ) as string[];
  const { node_fields: fields, node_types: types } = header.snapshot.meta;
  const kinds = types[0];
  const nodes = integers(buffer, nodesAt + '"nodes":['.length);
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const groups = new Map<string, HeapGroup>();
  for (let i = 0; i < nodes.length; i += fields.length) {
    const kind = kinds[nodes[i + typeAt!]!]!;
    const name = BY_KIND.has(kind) ? `(${kind})` : `${strings[nodes[i + nameAt!]!]} (${kind})`;
    const group = groups.get(name) ?? { name, count: 0, selfMb: 0 };
    group.count += 1;
    group.selfMb += nodes[i + sizeAt!]! / MB;
    groups.set(name, group);
  }
  return [...groups.values()].sort((a, b) => b.selfMb - a.selfMb).slice(0, top);
}

/**
 * Has the process (started with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>`) write a
 * heap snapshot into `dir`, and resolves with its path once it is whole: the process writes it
 * synchronously, so its next answer to `probeUrl` comes after the last byte.
 */
export async function takeHeapSnapshot(
  pid: number,
  dir: string,
  probeUrl: string,
  timeoutMs: number,
): Promise<string> {
  const signal = AbortSignal.timeout(timeoutMs);
  const file = await new Promise<string>((resolve, reject) => {
    const watcher = watch(dir, { signal }, (_event, name) => {
      if (!name?.endsWith('.heapsnapshot')) return;
      watcher.close();
      resolve(path.join(dir, name));
    });
    const fail = (): void =>
      reject(new Error(`no heap snapshot of process ${pid} in ${dir} within ${timeoutMs} ms`));
    watcher.once('error', fail);
    signal.addEventListener('abort', fail, { once: true });
    process.kill(pid, 'SIGUSR2');
  });
  await fetch(probeUrl, { signal });
  return file;
}
