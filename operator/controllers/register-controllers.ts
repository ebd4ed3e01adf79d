import type { ControllerName } from '../config.js';
import { splitKey } from '../kube/objects.js';
import type { ControllerRegistration, Manager } from '../runtime/manager.js';
import type { CrcTopologyOptions } from './clusterinstance/crc/crc-topology.js';
import { CrcTopology } from './clusterinstance/crc/crc-topology.js';
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
  crc?: CrcTopologyOptions;
  /**
   * Limits the pool, lease and instance controllers to objects in these namespaces (default: all)
   * while their caches still see every namespace (hcp control planes live in namespaces of their
   * own). Tests that share one control plane use it to stay out of each other's objects.
   */
  namespaces?: readonly string[];
  bundles?: BundleControllerOptions;
}

/** Adds the operator's controllers to the manager, in one place. */
export function registerControllers(manager: Manager, options: RegisterOptions = {}): void {
  const enabled = new Set(options.controllers ?? manager.config.controllers);
  const add = (registration: ControllerRegistration): void =>
    void manager.addController(limitedTo(registration, options.namespaces));
  if (enabled.has('clusterpool')) add(new PoolController(manager).registration());
  if (enabled.has('clusterlease')) add(new LeaseController(manager).registration());
  if (enabled.has('clusterinstance')) {
    const topologies = {
      hcp: new HcpTopology(manager, options.hcp),
      crc: new CrcTopology(manager, options.crc),
    };
    add(new InstanceController(manager, topologies).registration());
  }
  if (enabled.has('crcbundle'))
    manager.addController(new BundleController(manager, options.bundles).registration());
}

/** A controller that leaves objects outside `namespaces` alone. */
function limitedTo(
  registration: ControllerRegistration,
  namespaces: readonly string[] | undefined,
): ControllerRegistration {
  if (!namespaces) return registration;
  return {
    ...registration,
    reconcile: async (key, context) =>
      namespaces.includes(splitKey(key).namespace ?? '')
        ? registration.reconcile(key, context)
        : {},
  };
}
