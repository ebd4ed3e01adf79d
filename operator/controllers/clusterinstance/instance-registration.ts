import type { Registry } from 'prom-client';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { InstanceSettings } from './core/instance-api.js';
import { InstanceApi } from './core/instance-api.js';
import type { InstanceTimings } from './core/timings.js';
import type { CrcTopologyOptions } from './crc/crc-topology.js';
import { CrcTopology } from './crc/crc-topology.js';
import type { HcpTopologyOptions } from './hcp/hcp-topology.js';
import { HcpTopology } from './hcp/hcp-topology.js';
import { InstanceController } from './instance-controller.js';
import { guestApiCheckRunner } from './core/guest-api-checks.js';

export interface InstanceControllerOptions {
  settings: InstanceSettings;
  /** Where the provisioning histogram is registered (the manager's /metrics). */
  metricsRegistry: Registry;
  /** The instance controllers' waits: the `instance` section of the operator's timings. */
  timings: InstanceTimings;
  hcp?: HcpTopologyOptions;
  crc?: CrcTopologyOptions;
  /** Queues an instance's pass: its guest API check has ended (register-controllers.ts). */
  requeue?: (key: string) => void;
}

/** The ClusterInstance controller with both topologies, on one InstanceApi and one set of timings. */
export function instanceController(
  ports: ControllerPorts,
  options: InstanceControllerOptions,
): InstanceController {
  const api = new InstanceApi(ports, options.settings, options.metricsRegistry);
  const { timings, requeue } = options;
  // One cap for the guest API checks of both topologies; each end queues its instance.
  const guestChecks = guestApiCheckRunner((key) => requeue?.(key));
  const topologies = {
    hcp: new HcpTopology(api, timings, { guestChecks, ...options.hcp }),
    crc: new CrcTopology(api, timings, { guestChecks, ...options.crc }),
  };
  const controller = new InstanceController(api, topologies, timings);
  const { forType, owns = [], watches = [] } = controller.registration();
  api.cacheOnly([forType, ...owns, ...watches.map((watch) => watch.type)]);
  return controller;
}

export function instanceControllerRegistration(
  ports: ControllerPorts,
  options: InstanceControllerOptions,
): ControllerRegistration {
  return instanceController(ports, options).registration();
}
