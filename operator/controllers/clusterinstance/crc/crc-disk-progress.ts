import { formatGoDuration } from '../../../../client/api/duration.js';
import { metaTime } from '../../../../client/kube/meta-time.js';
import type { Stored } from '../../../kube/objects.js';
import type { PlatformObject } from '../core/platform-object.js';
import type { CrcPass } from './crc-pass.js';

/**
 * The root disk's own deadline (docs/reference/instances.md#provisioning-deadline): while CDI
 * fills it, status.crc.diskProgress keeps the progress CDI reports and since when; a progress that
 * has not moved for instance.dataVolumeStallDeadline is a stalled import or clone, answered with
 * why (CDI's words), else undefined. A filled disk drops the record.
 */
export function diskStall(
  pass: CrcPass,
  dataVolume: Stored<PlatformObject>,
  pending: string | undefined,
): string | undefined {
  const crc = pass.draft.status.crc;
  const progress = (dataVolume.status as { progress?: string } | undefined)?.progress;
  if (!pending || !progress || !crc) {
    if (crc?.diskProgress) delete crc.diskProgress;
    return undefined;
  }
  const now = pass.api.now();
  if (crc.diskProgress?.progress !== progress)
    crc.diskProgress = { progress: progress.slice(0, 32), since: metaTime(now) };
  const deadlineMs = pass.timings.dataVolumeStallDeadlineMs;
  const since = Date.parse(crc.diskProgress.since);
  if (now < since + deadlineMs) return undefined;
  return `the root disk made no progress for ${formatGoDuration(deadlineMs)} (instance.dataVolumeStallDeadline): ${pending}`;
}
