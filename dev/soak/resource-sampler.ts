import { readdir, readFile } from 'node:fs/promises';
import type { ResourceSample } from './resource-trend.js';

const SAMPLE_EVERY_MS = 5000;

/** One reading of a process, or undefined when it is gone (killed between two readings). */
export async function sampleProcess(
  pid: number,
  atMs: number,
): Promise<ResourceSample | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const rssKiB = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]);
    const fds = (await readdir(`/proc/${pid}/fd`)).length;
    return Number.isFinite(rssKiB) ? { atMs, pid, rssBytes: rssKiB * 1024, fds } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the operator's RSS and open descriptors every five seconds, whichever process it is now. */
export class ResourceSampler {
  readonly samples: ResourceSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: () => number | undefined,
    private readonly startedAt: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), SAMPLE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    const pid = this.pid();
    if (!pid) return;
    const sample = await sampleProcess(pid, Date.now() - this.startedAt);
    if (sample) this.samples.push(sample);
  }
}
