import type { PersistentVolumeClaim } from '../../../operator/kube/workloads.js';
import { quantityBytes } from '../../../operator/kube/quantity.js';

/** CDI's default filesystem overhead (common.DefaultGlobalOverhead, v1.62; 0.06 from v1.63). */
export const FILESYSTEM_OVERHEAD = 0.055;
const ALIGNMENT = 2 ** 20;

/**
 * The request CDI gives a DataVolume's claim with the `storage` API (renderPvcSpecVolumeSize,
 * InflateSizeWithOverhead): a Filesystem volume (the default mode) is inflated so that the disk
 * image, aligned to 1 MiB, fits beside the filesystem's overhead; a Block volume is not.
 */
export function claimRequestBytes(requested: string, volumeMode: string | undefined): number {
  const bytes = quantityBytes(requested);
  if (volumeMode === 'Block') return bytes;
  const aligned = Math.ceil(bytes / ALIGNMENT) * ALIGNMENT;
  return Math.ceil(aligned / (1 - FILESYSTEM_OVERHEAD));
}

const requestOf = (claim: PersistentVolumeClaim): number =>
  quantityBytes(claim.spec.resources?.requests?.storage ?? '0');

/**
 * Why CDI's CSI clone (the clone populator's planner, ValidateRequestedCloneSize) refuses to clone
 * `source` into `target`: a target that requests less than the source does. Undefined when fine.
 */
export function cloneSizeProblem(
  source: PersistentVolumeClaim,
  target: PersistentVolumeClaim,
): string | undefined {
  const [sourceBytes, targetBytes] = [requestOf(source), requestOf(target)];
  if (targetBytes >= sourceBytes) return undefined;
  return `target resources requests storage size is smaller than the source ${targetBytes} < ${sourceBytes}`;
}
