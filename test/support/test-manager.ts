import { EventEmitter } from 'node:events';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { pino } from 'pino';
import type { OperatorConfig } from '../../operator/config.js';
import { managerOptions } from '../../operator/config.js';
import { testConfig } from './test-config.js';
import type { ControllerRegistration } from '../../operator/runtime/manager.js';
import { Manager } from '../../operator/runtime/manager.js';

/** Records every reconcile and lets a test wait for the next one of a key. */
export class ReconcileRecorder {
  private readonly emitter = new EventEmitter();
  readonly calls: { key: string; existed: boolean }[] = [];

  record(key: string, existed: boolean): void {
    this.calls.push({ key, existed });
    this.emitter.emit(key, existed);
  }

  /** Resolves with whether the object was in the cache, at the next reconcile of `key`. */
  next(key: string): Promise<boolean> {
    return new Promise((resolve) => this.emitter.once(key, resolve));
  }
}

/**
 * A manager with one controller of the test's (not the operator's), quiet: for tests of the
 * runtime itself. Not started.
 */
export function quietManager(
  kubeConfig: ClusterAccess,
  registration: (manager: Manager) => ControllerRegistration,
  options: { config?: Partial<OperatorConfig>; watchBackoffMaxMs?: number } = {},
): Manager {
  const manager = new Manager({
    ...managerOptions(testConfig(options.config)),
    kubeConfig,
    logger: pino({ level: 'silent' }),
    watchBackoff: { baseMs: 50, maxMs: options.watchBackoffMaxMs ?? 1000, jitter: 0.2 },
  });
  manager.addController(registration(manager));
  return manager;
}
