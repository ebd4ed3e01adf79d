import type { KubeObject } from '../../../kube/objects.js';

/**
 * An object with free-form spec and status: the platform's kinds (KubeVirt, CDI, HyperShift,
 * OpenShift routes and configuration) are read as plain JSON.
 */
export interface PlatformObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}
