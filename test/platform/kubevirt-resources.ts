import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../operator/kube/resource-type.js';

/** The KubeVirt, CDI and core kinds the simulated crc platform acts on, as their controllers see them. */
export const VIRTUAL_MACHINES = resourceType('kubevirt.io/v1', 'VirtualMachine', 'virtualmachines');
export const VIRTUAL_MACHINE_INSTANCES = resourceType(
  'kubevirt.io/v1',
  'VirtualMachineInstance',
  'virtualmachineinstances',
);
export const DATA_VOLUMES = resourceType('cdi.kubevirt.io/v1beta1', 'DataVolume', 'datavolumes');
export const SERVICES = resourceType('v1', 'Service', 'services');

/** The label KubeVirt puts on a VM's launcher pod (the crc API Service selects on it). */
export const LABEL_VM_NAME = 'vm.kubevirt.io/name';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
}

export interface VirtualMachineObject extends KubeObject {
  spec?: {
    runStrategy?: string;
    running?: boolean;
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        nodeSelector?: Record<string, string>;
        domain?: Record<string, unknown>;
        volumes?: { name: string; dataVolume?: { name: string } }[];
      };
    };
  };
  status?: {
    ready?: boolean;
    created?: boolean;
    printableStatus?: string;
    runStrategy?: string;
    conditions?: Condition[];
  };
}

export interface VmiInterface {
  name?: string;
  ipAddress?: string;
  ipAddresses?: string[];
  infoSource?: string;
}

export interface VmiObject extends KubeObject {
  spec?: NonNullable<NonNullable<VirtualMachineObject['spec']>['template']>['spec'];
  status?: {
    phase?: string;
    nodeName?: string;
    interfaces?: VmiInterface[];
    conditions?: Condition[];
  };
}

export interface DataVolumeObject extends KubeObject {
  spec?: {
    source?: { http?: { url?: string }; pvc?: { namespace?: string; name?: string } };
    storage?: {
      storageClassName?: string;
      accessModes?: string[];
      resources?: { requests?: Record<string, string> };
    };
  };
  status?: {
    phase?: string;
    progress?: string;
    claimName?: string;
    conditions?: Condition[];
  };
}

export interface ServiceObject extends KubeObject {
  spec?: {
    selector?: Record<string, string>;
    ports?: { name?: string; port: number; targetPort?: number | string; protocol?: string }[];
  };
}

/** The pod fields the simulated platform reads besides the Job runner's. */
export interface PodStatusIp {
  status?: { podIP?: string; phase?: string };
}

export const timestamp = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
