import type { Manager } from '../runtime/manager.js';
import { LeaseController } from './clusterlease/lease-controller.js';
import { PoolController } from './clusterpool/pool-controller.js';
import type { BundleControllerOptions } from './crcbundle/bundle-controller.js';
import { BundleController } from './crcbundle/bundle-controller.js';

export interface ControllerOptions {
  bundles?: BundleControllerOptions;
}

/** Adds the operator's controllers (those named in its configuration) to the manager, in one place. */
export function registerControllers(manager: Manager, options: ControllerOptions = {}): void {
  const enabled = new Set(manager.config.controllers);
  if (enabled.has('clusterpool')) manager.addController(new PoolController(manager).registration());
  if (enabled.has('clusterlease'))
    manager.addController(new LeaseController(manager).registration());
  if (enabled.has('crcbundle'))
    manager.addController(new BundleController(manager, options.bundles).registration());
}
