import type { Manager } from '../../operator/runtime/manager.js';

/** A controller's passes so far (all results), from the manager's own metrics. */
export async function controllerPasses(manager: Manager, controller: string): Promise<number> {
  const metric = await manager.metrics.reconcileTotal.get();
  return metric.values
    .filter((v) => v.labels.controller === controller)
    .reduce((sum, v) => sum + v.value, 0);
}
