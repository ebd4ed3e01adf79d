import type { Manager } from '../runtime/manager.js';
import { LeaseController } from './clusterlease/lease-controller.js';
import { PoolController } from './clusterpool/pool-controller.js';

/** Adds the operator's controllers to the manager, in one place. */
export function registerControllers(manager: Manager): void {
  manager.addController(new PoolController(manager).registration());
  manager.addController(new LeaseController(manager).registration());
}
