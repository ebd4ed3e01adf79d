import { LABEL_CLUSTER_INSTANCE } from '../../../api/labels.js';
import type { ClusterInstance, CRCBundle } from '../../../../client/api/resources.js';
import { BUNDLES, INSTANCES, SECRETS } from '../../../../client/api/resources.js';
import { JOBS, LABEL_JOB_NAME, PODS, SERVICES } from '../../../../client/api/core-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { WatchSpec } from '../../../runtime/manager.js';
import type { Instance, InstanceApi } from '../core/instance-api.js';
import { instanceKey, ownerInstances } from '../core/watches.js';
import { crcBundleName, crcDiskName, crcVmName } from './crc-naming.js';
import { NETWORK_POLICIES } from './crc-network-policy.js';

/**
 * What a crc instance hears about (event-driven, ADR 0004): its own objects by owner reference,
 * what KubeVirt and CDI make for them (VMI, launcher pods, PVC) by label or by the recorded names,
 * its agent Job's pods, the Secrets its template names, and the CRCBundle it clones.
 */
export function crcWatches(api: InstanceApi): WatchSpec[] {
  const crcIn = (namespace: string | undefined, test: (i: Instance) => boolean): string[] =>
    api
      .cachedList<ClusterInstance>(
        INSTANCES,
        (i) => i.spec.type === 'crc' && i.metadata.namespace === namespace && test(i),
      )
      .map(instanceKey);
  const owned = ownerInstances;
  const labelled = (object: KubeObject): string[] => {
    const name = object.metadata?.labels?.[LABEL_CLUSTER_INSTANCE];
    return name ? [`${object.metadata?.namespace}/${name}`] : [];
  };
  const byVmName = (object: KubeObject, vm: string | undefined): string[] =>
    vm ? crcIn(object.metadata?.namespace, (i) => crcVmName(i) === vm) : [];
  return [
    { type: VIRTUAL_MACHINES, map: owned },
    {
      type: VIRTUAL_MACHINE_INSTANCES,
      map: (vmi) => {
        const keys = labelled(vmi);
        return keys.length ? keys : byVmName(vmi, vmi.metadata?.name);
      },
    },
    { type: DATA_VOLUMES, map: owned },
    {
      type: PERSISTENT_VOLUME_CLAIMS,
      map: (pvc) =>
        (pvc.metadata?.ownerReferences ?? [])
          .filter((ref) => ref.kind === DATA_VOLUMES.kind)
          .flatMap((ref) => crcIn(pvc.metadata?.namespace, (i) => crcDiskName(i) === ref.name)),
    },
    { type: JOBS, map: owned },
    {
      type: PODS,
      map: (pod) => {
        const job = pod.metadata?.labels?.[LABEL_JOB_NAME];
        const fromJob = job
          ? owned(api.cached<KubeObject>(JOBS, `${pod.metadata?.namespace}/${job}`) ?? {})
          : [];
        return [...new Set([...fromJob, ...byVmName(pod, pod.metadata?.labels?.[LABEL_VM_NAME])])];
      },
    },
    {
      type: SECRETS,
      map: (secret) => [
        ...owned(secret),
        ...crcIn(secret.metadata?.namespace, (i) => {
          const template = i.spec.template;
          const name = secret.metadata?.name;
          return (
            (template.pullSecretRef?.name || 'pull-secret') === name ||
            template.bundleSSHKeyRef?.name === name
          );
        }),
      ],
    },
    { type: SERVICES, map: owned },
    { type: NETWORK_POLICIES, map: owned },
    { type: ROUTES, map: owned },
    {
      type: BUNDLES,
      map: (bundle) =>
        api
          .cachedList<ClusterInstance>(
            INSTANCES,
            (i) =>
              i.spec.type === 'crc' && crcBundleName(i) === (bundle as CRCBundle).metadata?.name,
          )
          .map(instanceKey),
    },
  ];
}
