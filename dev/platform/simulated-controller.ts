import type { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { BackoffPolicy } from '../../operator/runtime/backoff.js';
import type { ControllerRegistration } from '../../operator/runtime/manager.js';
import { Manager } from '../../operator/runtime/manager.js';
import { managerOptions } from '../../operator/config.js';
import { testConfig } from './manager-config.js';

/**
 * A manager for simulated platform controllers: its own client, caches and work queues, no
 * endpoints, quiet. Simulated controllers act through the real API like the ones they stand for.
 */
export function simulatedManager(
  kubeConfig: KubeConfig,
  options: { retryBackoff?: BackoffPolicy } = {},
): Manager {
  return new Manager({
    ...managerOptions(testConfig({ metricsAddress: undefined, probeAddress: undefined })),
    kubeConfig,
    logger: pino({ level: process.env.PLATFORM_TEST_LOG_LEVEL ?? 'silent' }, process.stderr),
    watchBackoff: { baseMs: 50, maxMs: 1000, jitter: 0.2 },
    retryBackoff: options.retryBackoff,
  });
}

/** A simulated platform controller on a manager of its own, started. */
export async function startSimulatedController(
  kubeConfig: KubeConfig,
  registration: (manager: Manager) => ControllerRegistration,
): Promise<Manager> {
  const manager = simulatedManager(kubeConfig);
  manager.addController(registration(manager));
  await manager.start();
  return manager;
}
