import type { ApiClient } from '../kube/api-client.js';
import { isNotFound } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import type { ResourceType } from '../kube/resource-type.js';

export interface ReaderListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Only each object's metadata: a ConfigMap's data is not read when only its name is needed. */
  metadataOnly?: boolean;
}

export interface PodLogOptions {
  tailLines: number;
  limitBytes: number;
  container?: string;
}

/**
 * The reads a diagnostics collection makes, live: the CLI's and the Action's ApiClient, or the
 * operator's ports. A pod log is optional (the operator does not read logs).
 */
export interface DiagnosticsReader {
  /** The object, or undefined when it does not exist; other failures throw. */
  get<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
  ): Promise<T | undefined>;
  list<T extends KubeObject>(type: ResourceType, options: ReaderListOptions): Promise<T[]>;
  podLog?(namespace: string, pod: string, options: PodLogOptions): Promise<string>;
}

/** A reader on the ApiClient the CLI and the Action use, with the caller's own credentials. */
export function apiClientReader(api: ApiClient): DiagnosticsReader {
  return {
    async get<T extends KubeObject>(type: ResourceType, name: string, namespace?: string) {
      try {
        return await api.get<T>(type, name, namespace);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    async list<T extends KubeObject>(type: ResourceType, options: ReaderListOptions) {
      return (await api.list<T>(type, options)).items;
    },
    podLog: (namespace, pod, options) => api.podLog(namespace, pod, options),
  };
}
