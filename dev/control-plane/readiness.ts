import http from 'node:http';
import https from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import type { ManagedProcess } from './managed-process.js';

export interface HealthProbe {
  url: string;
  ca?: string;
  cert?: string;
  key?: string;
  /** Self-signed serving certificates (the controller manager's) cannot be verified. */
  insecure?: boolean;
}

/** One GET; resolves to the HTTP status, or 0 when nothing answered yet. */
function probeOnce(probe: HealthProbe): Promise<number> {
  return new Promise((resolve) => {
    const get = probe.url.startsWith('https:') ? https.get : http.get;
    const request = get(
      probe.url,
      {
        ca: probe.ca,
        cert: probe.cert,
        key: probe.key,
        rejectUnauthorized: !probe.insecure,
        timeout: 2000,
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(0));
  });
}

const PROBE_INTERVAL_MS = 100;

/**
 * Waits until a process answers its health endpoint with 200. There is no event to wait for here:
 * a process starting to listen is only observable by asking, so this polls, and stops at once when
 * the process exits.
 */
export async function waitUntilHealthy(
  process: ManagedProcess,
  probe: HealthProbe,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!process.running) throw await process.failure('failed to start');
    if ((await probeOnce(probe)) === 200) return;
    await Promise.race([delay(PROBE_INTERVAL_MS), process.exited]);
  }
  throw await process.failure(`did not answer ${probe.url} with 200 within ${timeoutMs / 1000}s`);
}
