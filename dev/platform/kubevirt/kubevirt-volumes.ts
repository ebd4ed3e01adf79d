import type { Condition, DataVolumeObject, VmiObject } from '../host/platform-kinds.js';

/**
 * Every volume of a VMI spec backed by a claim, with the claim's name: a DataVolume's claim has
 * its name (CDI), a persistentVolumeClaim volume names its own.
 */
export function claimVolumes(
  spec: VmiObject['spec'],
): { volume: string; claim: string; readOnly: boolean }[] {
  return (spec?.volumes ?? []).flatMap((v) => {
    if (v.dataVolume?.name) return [{ volume: v.name, claim: v.dataVolume.name, readOnly: false }];
    const pvc = v.persistentVolumeClaim;
    return pvc?.claimName
      ? [{ volume: v.name, claim: pvc.claimName, readOnly: !!pvc.readOnly }]
      : [];
  });
}

/** The claims of a VMI spec's persistentVolumeClaim volumes (not DataVolumes'). */
export function pvcVolumeClaims(spec: VmiObject['spec']): string[] {
  return (spec?.volumes ?? []).flatMap((v) =>
    v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : [],
  );
}

/** The DataVolumes a VMI spec mounts, by name. */
export function dataVolumeNames(spec: VmiObject['spec']): string[] {
  return (spec?.volumes ?? []).flatMap((v) => (v.dataVolume?.name ? [v.dataVolume.name] : []));
}

const condition = (dv: DataVolumeObject | undefined, type: string): Condition | undefined =>
  dv?.status?.conditions?.find((c) => c.type === type);

/**
 * KubeVirt's storagetypes.HasDataVolumeErrors: a DataVolume in phase Failed, or whose importer has
 * stopped with an error (Running=False, reason Error or ImagePullFailed). The VM shows
 * DataVolumeError then.
 */
export function dataVolumeError(dvs: (DataVolumeObject | undefined)[]): boolean {
  return dvs.some((dv) => {
    if (dv?.status?.phase === 'Failed') return true;
    const running = condition(dv, 'Running');
    return (
      running?.status === 'False' && ['Error', 'ImagePullFailed'].includes(running.reason ?? '')
    );
  });
}

/** storagetypes.HasDataVolumeProvisioning: a DataVolume not yet Succeeded (the VM shows Provisioning). */
export function dataVolumeProvisioning(dvs: (DataVolumeObject | undefined)[]): boolean {
  return dvs.some(
    (dv) =>
      dv !== undefined && !['Succeeded', 'PendingPopulation'].includes(dv.status?.phase ?? ''),
  );
}

/** storagetypes.VolumeReadyToAttachToNode for each volume: every DataVolume there and Succeeded. */
export function dataVolumesReady(dvs: (DataVolumeObject | undefined)[]): boolean {
  return dvs.every((dv) => dv?.status?.phase === 'Succeeded');
}

/** storagetypes.HasFailedDataVolumes: a VMI that has not started fails with one of them. */
export function dataVolumeFailed(dvs: (DataVolumeObject | undefined)[]): boolean {
  return dvs.some((dv) => dv?.status?.phase === 'Failed');
}

/**
 * virt-controller's aggregateDataVolumesConditions: the VMI's DataVolumesReady condition, True when
 * every DataVolume's Ready condition is, False when one is False, else Unknown.
 */
export function dataVolumesReadyCondition(
  dvs: (DataVolumeObject | undefined)[],
): Omit<Condition, 'lastTransitionTime'> | undefined {
  if (dvs.length === 0) return undefined;
  const statuses = dvs.map((dv) => condition(dv, 'Ready')?.status ?? 'Unknown');
  if (statuses.every((s) => s === 'True'))
    return {
      type: 'DataVolumesReady',
      status: 'True',
      reason: 'AllDVsReady',
      message: "All of the VMI's DVs are bound and ready",
    };
  return {
    type: 'DataVolumesReady',
    status: statuses.includes('False') ? 'False' : 'Unknown',
    reason: 'NotAllDVsReady',
    message: "Not all of the VMI's DVs are ready",
  };
}
