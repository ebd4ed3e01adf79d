import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { CancelledError } from './errors.js';
import { probeTcp, waitForSsh } from './wait-for-ssh.js';

async function listening(): Promise<{
  server: net.Server;
  port: number;
  accepted: Promise<net.Socket>;
}> {
  const server = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, accepted };
}

describe('waiting for SSH', () => {
  test('a successful probe closes its connection', async () => {
    const { server, port, accepted } = await listening();
    await probeTcp({ host: '127.0.0.1', port }, 60_000, new AbortController().signal);
    const socket = await accepted;
    await new Promise((resolve) => socket.once('close', resolve));
    server.close();
  });

  test('a cancelled wait makes no dial', async () => {
    const { server, port } = await listening();
    let dials = 0;
    server.on('connection', () => dials++);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const wait = waitForSsh(
      { host: '127.0.0.1', port },
      {
        probeTimeoutMs: 60_000,
        intervalMs: 60_000,
        timeoutMs: 60_000,
        signal: controller.signal,
      },
    );
    await expect(wait).rejects.toBeInstanceOf(CancelledError);
    server.close();
    expect(dials).toBe(0);
  });

  test('cancellation interrupts a dial in progress', async () => {
    const controller = new AbortController();
    // A non-routable address: the dial hangs until it is cancelled.
    const probe = probeTcp({ host: '10.255.255.1', port: 22 }, 600_000, controller.signal);
    controller.abort(new Error('VMI gone'));
    await expect(probe).rejects.toThrow('probe cancelled');
  });
});
