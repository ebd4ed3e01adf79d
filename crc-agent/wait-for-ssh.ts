import net from 'node:net';
import { retry } from './retry.js';

export interface SshEndpoint {
  host: string;
  port: number;
}

/**
 * One TCP probe: resolves once connected (and closes at once), rejects on error, timeout or abort.
 */
export function probeTcp(
  endpoint: SshEndpoint,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('probe cancelled'));
      return;
    }
    const socket = net.connect({ host: endpoint.host, port: endpoint.port });
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const onAbort = (): void => finish(new Error('probe cancelled'));
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs}ms`)), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish());
    socket.once('error', (error) => finish(error));
  });
}

/**
 * Probes the SSH port until it accepts a TCP connection
 * (docs/reference/agent-protocol.md#wait-for-ssh).
 */
export async function waitForSsh(
  endpoint: SshEndpoint,
  options: { probeTimeoutMs: number; intervalMs: number; timeoutMs: number; signal: AbortSignal },
): Promise<void> {
  await retry({
    what: `SSH on ${endpoint.host}:${endpoint.port} to accept connections`,
    intervalMs: options.intervalMs,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    attempt: async (signal) => {
      await probeTcp(endpoint, options.probeTimeoutMs, signal);
      return true;
    },
  });
}
