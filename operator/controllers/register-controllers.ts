import type { Manager } from '../runtime/manager.js';

/**
 * Adds the operator's controllers to the manager. Each controller's folder exports its
 * registration; they are added here in one place.
 */
export function registerControllers(manager: Manager): void {
  // The controllers (clusterpool, clusterlease, clusterinstance, crcbundle) register here as they land.
  void manager;
}
