import type { ControllerRegistration, Manager } from '../../runtime/manager.js';
import { InstanceApi } from './core/instance-api.js';
import type { InstanceTimings } from './core/timings.js';
import { instanceTimings } from './core/timings.js';
import type { CrcTopologyOptions } from './crc/crc-topology.js';
import { CrcTopology } from './crc/crc-topology.js';
import type { HcpTopologyOptions } from './hcp/hcp-topology.js';
import { HcpTopology } from './hcp/hcp-topology.js';
import { InstanceController } from './instance-controller.js';

export interface InstanceControllerOptions {
  hcp?: HcpTopologyOptions;
  crc?: CrcTopologyOptions;
  /** The instance controllers' waits; unset ones keep their defaults. */
  timings?: Partial<InstanceTimings>;
}

/** The ClusterInstance controller with both topologies, built on one InstanceApi and one set of timings. */
export function instanceControllerRegistration(
  manager: Manager,
  options: InstanceControllerOptions = {},
): ControllerRegistration {
  const api = new InstanceApi(manager);
  const timings = instanceTimings(options.timings);
  const topologies = {
    hcp: new HcpTopology(api, timings, options.hcp),
    crc: new CrcTopology(api, timings, options.crc),
  };
  const registration = new InstanceController(api, topologies, timings).registration();
  api.cacheOnly([
    registration.forType,
    ...(registration.owns ?? []),
    ...(registration.watches ?? []).map((watch) => watch.type),
  ]);
  return registration;
}
