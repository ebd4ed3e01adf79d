import type { ControllerName } from '../config.js';
import { CONTROLLER_NAMES } from '../config.js';
import type { Manager } from '../runtime/manager.js';
import { HcpTopology } from './clusterinstance/hcp/hcp-topology.js';
import type { HcpTopologyOptions } from './clusterinstance/hcp/hcp-topology.js';
import { InstanceController } from './clusterinstance/instance-controller.js';
import { LeaseController } from './clusterlease/lease-controller.js';
import { PoolController } from './clusterpool/pool-controller.js';

export interface RegisterOptions {
  /** Which controllers run (default: all), as with kube-controller-manager's --controllers. */
  controllers?: readonly ControllerName[];
  hcp?: HcpTopologyOptions;
  /**
   * Limits the instance controller to instances in these namespaces (default: all). Tests that
   * share one control plane use it to stay out of each other's instances.
   */
  instanceNamespaces?: readonly string[];
}

/** Adds the operator's controllers to the manager, in one place. */
export function registerControllers(manager: Manager, options: RegisterOptions = {}): void {
  const enabled = new Set(options.controllers ?? CONTROLLER_NAMES);
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
}
