import type { KubeObject } from '../../../operator/kube/objects.js';
import type { Pod } from '../../../operator/kube/workloads.js';
import type { Informer } from '../../../operator/runtime/informer.js';

type MountingPod = Pod & {
  spec?: {
    volumes?: { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }[];
  };
};

/**
 * CDI's GetPodsUsingPVCs(…, allowReadOnly=true), as IsSourceClaimReady asks it before a clone: the
 * pods of the claim's namespace that have not completed and mount it read-write (a volume not
 * marked readOnly with a container mount that is not readOnly). A clone waits while there is one.
 */
export function podsUsingClaim(
  pods: Informer<Pod>,
  namespace: string,
  claim: string,
): MountingPod[] {
  return pods.list((p) => {
    const pod = p as MountingPod;
    if (pod.metadata?.namespace !== namespace) return false;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
    return (pod.spec?.volumes ?? []).some((volume) => {
      if (
        volume.persistentVolumeClaim?.claimName !== claim ||
        volume.persistentVolumeClaim.readOnly
      )
        return false;
      return (pod.spec?.containers ?? []).some((c) =>
        (c.volumeMounts ?? []).some((m) => m.name === volume.name && !m.readOnly),
      );
    });
  });
}

/** The claims a pod mounts, for waking the clones of them when the pod changes or goes. */
export function claimsOf(pod: KubeObject): string[] {
  return ((pod as MountingPod).spec?.volumes ?? []).flatMap((v) =>
    v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : [],
  );
}
