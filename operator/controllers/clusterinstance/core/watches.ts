import { LABEL_CLUSTER_INSTANCE, LABEL_CLUSTER_INSTANCE_NAMESPACE } from '../../../api/labels.js';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import { INSTANCES } from '../../../../client/api/resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import { ownerKeys } from '../../../runtime/owner-keys.js';
import type { Instance, InstanceApi } from './instance-api.js';

/*
 * How the objects an instance hears about map back to instance keys ("namespace/name"), for the
 * watches of both topologies.
 */

export const instanceKey = (instance: Instance): string =>
  `${instance.metadata.namespace}/${instance.metadata.name}`;

/** The keys of the cached instances for which `test` holds. */
export function instanceKeys(api: InstanceApi, test: (instance: Instance) => boolean): string[] {
  return api.cachedList<ClusterInstance>(INSTANCES, test).map(instanceKey);
}

/** The instances that own the object by owner reference (same namespace). */
export const ownerInstances = (object: KubeObject): string[] => ownerKeys(object, INSTANCES);

/**
 * The instance named by the object's instance label, in the namespace of its instance-namespace
 * label (objects in other namespaces carry it), else in its own.
 */
export function labelledInstance(object: KubeObject | undefined): string[] {
  const labels = object?.metadata?.labels ?? {};
  const name = labels[LABEL_CLUSTER_INSTANCE];
  const namespace = labels[LABEL_CLUSTER_INSTANCE_NAMESPACE] ?? object?.metadata?.namespace;
  return name && namespace ? [`${namespace}/${name}`] : [];
}
