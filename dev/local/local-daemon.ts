import { copyFile, chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { adminAccessFromFile } from '../support/admin-access.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { LocalControlPlane } from '../control-plane/control-plane.js';
import { installProjectCrds } from '../control-plane/install-crds.js';
import { TestMirror } from '../platform/bundles/bundle-fixtures.js';
import {
  SimulatedPlatform,
  simulatedBuilds,
  TEST_AGENT_IMAGE,
} from '../platform/simulated-platform.js';
import { LocalOperator } from './local-operator.js';
import { LOCAL_STREAM, startLocalUpdateService } from './local-update-service.js';
import { DEMO, seedLocalEnvironment } from './local-seed.js';
import type { LocalState } from './local-state.js';
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

type Stoppable = { stop(): Promise<void> };

/**
 * Runs the local environment in the foreground until SIGTERM or SIGINT, or until one of its
 * components dies: the control plane, the simulated platform (crc and hcp, one router that is
 * also an HTTPS proxy), a bundle mirror serving a small test bundle, an update-service stand-in,
 * the operator as a process of its own with its ServiceAccount's rights, and the samples'
 * namespace and pools and a VersionStream. `local up` runs
 * this in a detached process; its components die with it.
 */
export async function serveLocalEnvironment(): Promise<void> {
  await mkdir(localDir(), { recursive: true });
  const stopRequested = nextSignal();
  let plane: LocalControlPlane | undefined;
  // Stopped in reverse order of start.
  const parts: Stoppable[] = [];
  let operator: LocalOperator | undefined;
  let state: LocalState | undefined;
  try {
    plane = await LocalControlPlane.start({
      log,
      beforeControllers: async (kubeconfigPath) => {
        const crds = await installProjectCrds(kubeconfigPath, log);
        log(`Installed ${crds.length} CustomResourceDefinitions`);
      },
    });
    await copyFile(plane.kubeconfigPath, localPaths.kubeconfig());
    await chmod(localPaths.kubeconfig(), 0o600);
    const kubeConfig = adminAccessFromFile(plane.kubeconfigPath);
    const api = new ApiClient(kubeConfig);
    const platform = await SimulatedPlatform.startPlatform(kubeConfig, api, {
      namespaces: [DEMO.namespace],
      operatorNamespace: 'guestcluster-operator-system',
      // CRCBundle builds run too (samples/crcbundle-build.yaml), on simulated build guests.
      crc: simulatedBuilds(api),
      hcp: true,
      log,
    });
    parts.unshift(platform);
    log(
      `Started the simulated platform; its router is also an HTTPS proxy at ${platform.router.proxyUrl}`,
    );
    const mirror = await TestMirror.start();
    parts.unshift(mirror);
    await mirror.publish(DEMO.crcVersion);
    log(`Serving a test CRC bundle ${DEMO.crcVersion} at ${mirror.baseUrl}`);
    const updateService = await startLocalUpdateService();
    parts.unshift(updateService);
    log(`Serving an update-service stand-in (${LOCAL_STREAM.channel}) at ${updateService.url}`);
    await seedLocalEnvironment(plane.binaries.kubectl, plane.kubeconfigPath);
    log(
      `Applied the deploy manifests and the samples: namespace ${DEMO.namespace}, pools ${DEMO.pools.join(', ')}, VersionStream ${LOCAL_STREAM.name}`,
    );
    state = {
      pid: process.pid,
      server: plane.server,
      kubeconfig: localPaths.kubeconfig(),
      startedAt: new Date().toISOString(),
      components: plane.pids,
      binDir: path.dirname(plane.binaries.kubectl),
      logs: plane.stateDir,
      demo: { namespace: DEMO.namespace, pools: [...DEMO.pools], proxy: platform.router.proxyUrl },
    };
    const recordOperator = (pid: number | undefined): Promise<void> =>
      writeLocalState({ ...state!, components: { ...state!.components, operator: pid } });
    operator = await LocalOperator.start({
      admin: kubeConfig,
      dir: plane.stateDir,
      env: {
        CRC_AGENT_IMAGE: TEST_AGENT_IMAGE,
        CRC_BUNDLE_MIRROR_URL: mirror.baseUrl,
        UPDATE_SERVICE_URL: updateService.url,
        HTTPS_PROXY: platform.router.proxyUrl,
        NO_PROXY: '127.0.0.1,localhost',
      },
      log,
      onStart: (pid) => void recordOperator(pid),
    });
    await recordOperator(operator.pid);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`Failed to start: ${message}`);
    tell({ error: message });
    await operator?.stop();
    for (const part of parts) await part.stop().catch(() => undefined);
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
  await operator.stop();
  for (const part of parts) await part.stop().catch(() => undefined);
  await plane.stop();
  await removeLocalState();
  await rm(localPaths.kubeconfig(), { force: true });
  log('Stopped');
  // Signal listeners and the IPC channel would keep the event loop alive.
  process.exit(reason.startsWith('Received') ? 0 : 1);
}
