import { readFile } from 'node:fs/promises';

const MB = 1024 * 1024;

/**
 * Where a process's resident memory is, by kind of mapping, from /proc/<pid>/smaps: what the
 * kernel counts, whatever the process says of itself.
 */
export interface ResidentMemory {
  /** VmRSS. */
  total: number;
  /** Mapped files: the node binary's code and data, shared libraries, ICU data. */
  files: number;
  /** glibc's main arena (brk). */
  brkHeap: number;
  /**
   * glibc's thread arenas: anonymous 64 MiB regions, each in a read-write part and a reserved one
   * (glibc malloc/arena.c, HEAP_MAX_SIZE on 64-bit).
   */
  threadArenas: number;
  /** How many thread arenas there are. */
  arenaCount: number;
  /** Thread stacks ([stack] and the 8 MiB anonymous stacks of the other threads). */
  stacks: number;
  /**
   * V8's heap pages: anonymous mappings in whole, aligned 256 KiB pages (V8's regular page size,
   * MemoryChunk::kPageSize), those of the heap's spaces and those it freed but keeps for reuse.
   */
  v8Pages: number;
  /** The rest of the anonymous memory: malloc's large (mmap) blocks, V8's large objects. */
  otherAnonymous: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perms: string;
  path: string;
  rssKb: number;
}

const ARENA_BYTES = 64n * 1024n * 1024n;
const STACK_BYTES = 8n * 1024n * 1024n;
const V8_PAGE_BYTES = 256n * 1024n;

function parseSmaps(text: string): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      mappings.push({
        start: BigInt(`0x${header[1]!}`),
        end: BigInt(`0x${header[2]!}`),
        perms: header[3]!,
        path: header[4]!.trim(),
        rssKb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss && mappings.length > 0) mappings[mappings.length - 1]!.rssKb = Number(rss[1]);
  }
  return mappings;
}

/** A glibc thread arena: a 64 MiB-aligned read-write start whose reserved rest ends 64 MiB on. */
function isArena(mapping: Mapping, next: Mapping | undefined): boolean {
  if (mapping.start % ARENA_BYTES !== 0n || mapping.perms !== 'rw-p' || mapping.path) return false;
  if (mapping.end - mapping.start === ARENA_BYTES) return true;
  return (
    next !== undefined &&
    next.start === mapping.end &&
    next.perms === '---p' &&
    next.end - mapping.start === ARENA_BYTES
  );
}

function isV8Page(mapping: Mapping): boolean {
  const size = mapping.end - mapping.start;
  return (
    !mapping.path &&
    mapping.perms === 'rw-p' &&
    mapping.start % V8_PAGE_BYTES === 0n &&
    size % V8_PAGE_BYTES === 0n
  );
}

/** A thread's stack: 8 MiB of read-write memory right above its guard page. */
function isStack(mapping: Mapping, previous: Mapping | undefined): boolean {
  if (mapping.path === '[stack]') return true;
  return (
    !mapping.path &&
    mapping.perms === 'rw-p' &&
    mapping.end - mapping.start === STACK_BYTES &&
    previous !== undefined &&
    previous.end === mapping.start &&
    previous.perms === '---p'
  );
}

export async function residentMemory(pid: number): Promise<ResidentMemory> {
  const mappings = parseSmaps(await readFile(`/proc/${pid}/smaps`, 'utf8'));
  const kb = { files: 0, brkHeap: 0, threadArenas: 0, stacks: 0, v8Pages: 0, otherAnonymous: 0 };
  let arenaCount = 0;
  mappings.forEach((mapping, i) => {
    if (mapping.path === '[heap]') kb.brkHeap += mapping.rssKb;
    else if (isStack(mapping, mappings[i - 1])) kb.stacks += mapping.rssKb;
    else if (mapping.path.startsWith('/')) kb.files += mapping.rssKb;
    else if (isArena(mapping, mappings[i + 1])) {
      kb.threadArenas += mapping.rssKb;
      arenaCount += 1;
    } else if (isV8Page(mapping)) kb.v8Pages += mapping.rssKb;
    else if (!mapping.path) kb.otherAnonymous += mapping.rssKb;
  });
  const total = mappings.reduce((sum, m) => sum + m.rssKb, 0);
  const toMb = (value: number): number => (value * 1024) / MB;
  return {
    total: toMb(total),
    files: toMb(kb.files),
    brkHeap: toMb(kb.brkHeap),
    threadArenas: toMb(kb.threadArenas),
    arenaCount,
    stacks: toMb(kb.stacks),
    v8Pages: toMb(kb.v8Pages),
    otherAnonymous: toMb(kb.otherAnonymous),
  };
}

/** What the process says of its own memory (prom-client's default metrics on its /metrics). */
export interface ReportedMemory {
  heapTotal: number;
  heapUsed: number;
  /** Memory of C++ objects bound to JavaScript ones, Buffers and ArrayBuffers included. */
  external: number;
  /** Committed size of each V8 heap space. */
  spaces: Record<string, number>;
  /** What the heap settings cost: CPU seconds of the process, and of them in garbage collection. */
  cpuSeconds: number;
  gcSeconds: number;
}

export async function reportedMemory(metricsPort: number): Promise<ReportedMemory> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sample = (name: string): number =>
    Number(new RegExp(`^guestcluster_${name} (\\S+)$`, 'm').exec(text)?.[1]);
  const value = (name: string): number => sample(name) / MB;
  let gcSeconds = 0;
  for (const [, seconds] of text.matchAll(
    /^guestcluster_nodejs_gc_duration_seconds_sum\{kind="\w+"\} (\S+)$/gm,
  ))
    gcSeconds += Number(seconds);
  const spaces: Record<string, number> = {};
  for (const [, space, bytes] of text.matchAll(
    /^guestcluster_nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)$/gm,
  ))
    spaces[space!] = Number(bytes) / MB;
  return {
    heapTotal: value('nodejs_heap_size_total_bytes'),
    heapUsed: value('nodejs_heap_size_used_bytes'),
    external: value('nodejs_external_memory_bytes'),
    spaces,
    cpuSeconds: sample('process_cpu_seconds_total'),
    gcSeconds,
  };
}
