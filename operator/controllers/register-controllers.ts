import type { ControllerName } from '../config.js';
import type { Manager } from '../runtime/manager.js';
import type { HcpTopologyOptions } from './clusterinstance/hcp/hcp-topology.js';
import { HcpTopology } from './clusterinstance/hcp/hcp-topology.js';
import { InstanceController } from './clusterinstance/instance-controller.js';
import { LeaseController } from './clusterlease/lease-controller.js';
import { PoolController } from './clusterpool/pool-controller.js';
import type { BundleControllerOptions } from './crcbundle/bundle-controller.js';
import { BundleController } from './crcbundle/bundle-controller.js';

export interface RegisterOptions {
  /** Which controllers run; default: those of the manager's configuration (--controllers). */
  controllers?: readonly ControllerName[];
  hcp?: HcpTopologyOptions;
  /**
   * Limits the instance controller to instances in these namespaces (default: all). Tests that
   * share one control plane use it to stay out of each other's instances.
   */
  instanceNamespaces?: readonly string[];
  bundles?: BundleControllerOptions;
}

/** Adds the operator's controllers to the manager, in one place. */
export function registerControllers(manager: Manager, options: RegisterOptions = {}): void {
  const enabled = new Set(options.controllers ?? manager.config.controllers);
  if (enabled.has('clusterpool')) manager.addController(new PoolController(manager).registration());
  if (enabled.has('clusterlease'))
    manager.addController(new LeaseController(manager).registration());
  if (enabled.has('clusterinstance')) {
    // crc instances are left alone until the crc topology is registered here.
    const topologies = { hcp: new HcpTopology(manager, options.hcp) };
    manager.addController(
      new InstanceController(manager, topologies, options.instanceNamespaces).registration(),
    );
  }
  if (enabled.has('crcbundle'))
    manager.addController(new BundleController(manager, options.bundles).registration());
}
