import { copyFile, chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { LocalControlPlane } from '../control-plane/control-plane.js';
import { installProjectCrds } from '../control-plane/install-crds.js';
import { localDir, localPaths, removeLocalState, writeLocalState } from './local-state.js';

/** Messages from the background process to the `local up` that started it. */
export type DaemonMessage = { progress: string } | { ready: true } | { error: string };

function tell(message: DaemonMessage): void {
  // Only while `local up` listens: it disconnects once the environment is ready.
  if (process.connected) process.send?.(message);
}

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} ${message}\n`);
  tell({ progress: message });
}

function nextSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}

/**
 * Runs the local environment in the foreground until SIGTERM or SIGINT, or until one of its
 * components dies. `local up` runs this in a detached process; its components die with it.
 */
export async function serveLocalEnvironment(): Promise<void> {
  await mkdir(localDir(), { recursive: true });
  const stopRequested = nextSignal();
  let plane: LocalControlPlane | undefined;
  try {
    plane = await LocalControlPlane.start({
      log,
      beforeControllers: async (kubeconfigPath) => {
        const crds = await installProjectCrds(kubeconfigPath);
        log(`Installed ${crds.length} CustomResourceDefinitions`);
      },
    });
    await copyFile(plane.kubeconfigPath, localPaths.kubeconfig());
    await chmod(localPaths.kubeconfig(), 0o600);
    await writeLocalState({
      pid: process.pid,
      server: plane.server,
      kubeconfig: localPaths.kubeconfig(),
      startedAt: new Date().toISOString(),
      components: plane.pids,
      binDir: path.dirname(plane.binaries.kubectl),
      logs: plane.stateDir,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`Failed to start: ${message}`);
    tell({ error: message });
    await plane?.stop();
    process.exit(1);
  }
  tell({ ready: true });

  const crashed = plane
    .firstExit()
    .then(async (component) => (await component.failure('stopped unexpectedly')).message);
  const reason = await Promise.race([
    stopRequested.then((signal) => `Received ${signal}`),
    crashed,
  ]);
  log(`${reason}; stopping`);
  await plane.stop();
  await removeLocalState();
  await rm(localPaths.kubeconfig(), { force: true });
  log('Stopped');
  // Signal listeners and the IPC channel would keep the event loop alive.
  process.exit(reason.startsWith('Received') ? 0 : 1);
}
