import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { QEMU_IMG, requireTools } from '../control-plane/required-tools.js';
import type { DaemonMessage } from './local-daemon.js';
import type { LocalState } from './local-state.js';
import { isProcessAlive, localDir, localPaths, readLocalState } from './local-state.js';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function printEndpoints(state: LocalState): void {
  const kubectl = path.join(state.binDir, 'kubectl');
  const relative = path.relative(process.cwd(), state.kubeconfig);
  const kubeconfig = relative.startsWith('..') ? state.kubeconfig : relative;
  say(`  API server:  ${state.server}`);
  say(`  kubeconfig:  ${state.kubeconfig}`);
  say(`  log:         ${localPaths.log()} (components: ${state.logs})`);
  if (state.demo) {
    say(`  namespace:   ${state.demo.namespace} (pools ${state.demo.pools.join(', ')})`);
    say(`  router:      ${state.demo.proxy} (HTTPS proxy to Route hosts)`);
  }
  say(`Try: ${kubectl} --kubeconfig ${kubeconfig} get namespaces`);
}

/** Starts `local serve` detached, relays its progress, and returns once it is ready. */
export async function localUp(): Promise<void> {
  const existing = await readLocalState();
  if (existing && isProcessAlive(existing.pid)) {
    say(`The local environment is already running (pid ${existing.pid}).`);
    printEndpoints(existing);
    return;
  }
  // Before anything starts: a missing program says what to install, not `spawn … ENOENT` later.
  await requireTools([QEMU_IMG]);
  await mkdir(localDir(), { recursive: true });
  const logFd = openSync(localPaths.log(), 'a');
  const cli = process.argv[1]!;
  const daemon = spawn(process.execPath, [cli, 'local', 'serve'], {
    detached: true,
    stdio: ['ignore', logFd, logFd, 'ipc'],
  });
  closeSync(logFd);
  say(
    'Starting the local environment (control plane, simulated platform, operator); the first start builds the control plane...',
  );
  await new Promise<void>((resolve, reject) => {
    daemon.on('message', (message: DaemonMessage) => {
      if ('progress' in message) say(`  ${message.progress}`);
      else if ('ready' in message) resolve();
      else reject(new Error(`${message.error}\nThe full log is ${localPaths.log()}`));
    });
    daemon.once('exit', (code) =>
      reject(
        new Error(
          `The local environment exited with ${code} while starting; see ${localPaths.log()}`,
        ),
      ),
    );
  });
  daemon.disconnect();
  daemon.unref();
  const state = await readLocalState();
  if (!state)
    throw new Error(`The local environment reported ready but wrote no ${localPaths.state()}`);
  say(`The local environment is up (pid ${state.pid}).`);
  printEndpoints(state);
}

const STOP_TIMEOUT_MS = 60_000;

/** Stops the background process and waits until it and every component have exited. */
export async function localDown(): Promise<void> {
  const state = await readLocalState();
  if (!state || !isProcessAlive(state.pid)) {
    say('The local environment is not running.');
    return;
  }
  process.kill(state.pid, 'SIGTERM');
  const pids = [state.pid, ...Object.values(state.components)];
  // These are not our children, so there is no exit event to wait for: poll their liveness.
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (pids.some(isProcessAlive)) {
    if (Date.now() > deadline) {
      for (const pid of pids.filter(isProcessAlive)) process.kill(pid!, 'SIGKILL');
      say(`Some components did not stop within ${STOP_TIMEOUT_MS / 1000}s and were killed.`);
      break;
    }
    await delay(100);
  }
  say('The local environment is stopped.');
}

/** Prints whether the local environment runs; exits 1 when it does not. */
export async function localStatus(): Promise<void> {
  const state = await readLocalState();
  if (!state || !isProcessAlive(state.pid)) {
    say('The local environment is not running. Start it with: npm start');
    process.exitCode = 1;
    return;
  }
  say(`The local environment is running (pid ${state.pid}, since ${state.startedAt}).`);
  for (const [component, pid] of Object.entries(state.components)) {
    say(
      `  ${component.padEnd(24)} pid ${pid ?? '?'}  ${isProcessAlive(pid) ? 'running' : 'NOT RUNNING'}`,
    );
  }
  printEndpoints(state);
}
