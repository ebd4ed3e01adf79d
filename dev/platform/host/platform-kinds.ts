import type { KubeObject } from '../../../operator/kube/objects.js';

/** The KubeVirt, CDI and core kinds the simulated crc platform acts on: the operator's own. */
export { SERVICES } from '../../../client/api/core-resources.js';
export {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINES,
  VIRTUAL_MACHINE_INSTANCES,
} from '../../../operator/api/platform-resources.js';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  observedGeneration?: number;
}

export interface VirtualMachineObject extends KubeObject {
  spec?: {
    runStrategy?: string;
    running?: boolean;
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: {
        nodeSelector?: Record<string, string>;
        evictionStrategy?: string;
        domain?: Record<string, unknown>;
        volumes?: {
          name: string;
          dataVolume?: { name: string };
          persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
        }[];
      };
    };
  };
  status?: {
    ready?: boolean;
    created?: boolean;
    printableStatus?: string;
    runStrategy?: string;
    stateChangeRequests?: { action: string }[];
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
    source?: {
      http?: { url?: string };
      pvc?: { namespace?: string; name?: string };
      blank?: Record<string, never>;
    };
    storage?: {
      storageClassName?: string;
      accessModes?: string[];
      volumeMode?: string;
      resources?: { requests?: Record<string, string> };
    };
  };
  status?: {
    phase?: string;
    progress?: string;
    restartCount?: number;
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
