import type { Stored } from '../../../kube/objects.js';
import type { PlatformObject } from '../core/platform-object.js';

interface DataVolumeStatus {
  phase?: string;
  progress?: string;
  restartCount?: number;
  conditions?: { type: string; status?: string; reason?: string; message?: string }[];
}

/** The Running reasons with which CDI reports an importer, cloner or populator that cannot go on. */
const STOPPED_BY_ERROR = ['Error', 'ImagePullFailed'];

/**
 * Why the root disk cannot be filled, in CDI's words, or undefined. CDI keeps the phase of an
 * import or clone that fails (ImportScheduled, ImportInProgress, CloneScheduled: the importer pod
 * restarts under restartPolicy OnFailure, the clone populator retries) and reports the error in
 * the Running condition: status False, reason Error (ImagePullFailed when the importer image
 * cannot be pulled) and the container's termination message, with status.restartCount; only a
 * lost claim makes the phase Failed. KubeVirt reads the same signs as a VM's DataVolumeError.
 */
export function diskFailure(dataVolume: Stored<PlatformObject>): string | undefined {
  const status = dataVolume.status as DataVolumeStatus | undefined;
  const running = status?.conditions?.find((c) => c.type === 'Running');
  const failedPhase = status?.phase === 'Failed';
  const stopped = running?.status === 'False' && STOPPED_BY_ERROR.includes(running.reason ?? '');
  if (!failedPhase && !stopped) return undefined;
  const ns = dataVolume.metadata.namespace;
  const name = dataVolume.metadata.name;
  const report = failedPhase
    ? `phase Failed${running?.reason ? ` (${running.reason})` : ''}`
    : `Running=False (${running!.reason})`;
  const quote = running?.message ? `: "${running.message}"` : '';
  return `DataVolume ${ns}/${name} cannot be filled: CDI reports ${report}${quote}${restarts(status)}; look further with kubectl -n ${ns} describe datavolume ${name}`;
}

function restarts(status: DataVolumeStatus | undefined): string {
  const count = status?.restartCount ?? 0;
  return count ? `, importer restarted ${count} time${count === 1 ? '' : 's'}` : '';
}

/**
 * What a root disk that is not filled yet waits for, in CDI's words (phase, progress, the Running
 * condition), or undefined once it is: what a stuck instance shows before its deadline.
 */
export function diskPendingMessage(dataVolume: Stored<PlatformObject>): string | undefined {
  const status = dataVolume.status as DataVolumeStatus | undefined;
  if (status?.phase === 'Succeeded') return undefined;
  const ns = dataVolume.metadata.namespace;
  const name = dataVolume.metadata.name;
  const progress = status?.progress ? `, progress ${status.progress}` : '';
  const running = status?.conditions?.find((c) => c.type === 'Running');
  const report = running
    ? `; CDI reports Running=${running.status}${running.reason ? ` (${running.reason})` : ''}${running.message ? `: "${running.message}"` : ''}`
    : '';
  return `waiting for DataVolume ${ns}/${name} to be filled: phase ${status?.phase ?? 'not reported yet'}${progress}${report}`;
}
