import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition } from '../../api/conditions.js';
import type { VersionStream } from '../../../client/api/resources.js';
import type { Pool } from './pool-conditions.js';
import { PoolReason } from './pool-conditions.js';
import type { InstanceRelease } from './pool-instance.js';

export type StreamAnswer = { release: InstanceRelease } | { unresolved: ConditionUpdate };

/**
 * What a pool that follows a VersionStream gives its new instances, from the stream's current
 * answer (ADR 0030): hcp, the release image and resolvedVersion; crc, the bundle version
 * (crcBundleVersion, which the CRC mirror may publish later than the update service a release)
 * as both crcVersion and ocpVersion, so an instance says the version its guest will run. A
 * stream that is missing, or has no answer for the pool's topology yet, gives none, and the pool
 * creates nothing. A stream that cannot reach its update service keeps its last answer, which
 * the pool goes on using.
 */
export function streamAnswer(pool: Pool, stream: VersionStream | undefined): StreamAnswer {
  const name = pool.spec.template.versionStreamRef?.name ?? '';
  const observedGeneration = pool.metadata.generation;
  const unresolved = (reason: string, message: string): StreamAnswer => ({
    unresolved: {
      type: 'VersionStreamResolved',
      status: 'False',
      reason,
      message,
      observedGeneration,
    },
  });
  if (!stream)
    return unresolved(
      PoolReason.VersionStreamNotFound,
      `VersionStream "${name}" does not exist; the pool creates no instance until it does`,
    );
  const status = stream.status ?? {};
  const release: InstanceRelease | undefined =
    pool.spec.type === 'hcp'
      ? status.resolvedVersion && status.releaseImage
        ? { ocpVersion: status.resolvedVersion, releaseImage: status.releaseImage }
        : undefined
      : status.crcBundleVersion
        ? { ocpVersion: status.crcBundleVersion, crcVersion: status.crcBundleVersion }
        : undefined;
  if (release) return { release };
  const resolved = findCondition(status.conditions, 'Resolved');
  const why = resolved ? ` (${resolved.reason}: ${resolved.message})` : '';
  const wanted = pool.spec.type === 'hcp' ? 'a release image' : 'a CRC bundle version';
  return unresolved(
    PoolReason.VersionStreamNotResolved,
    `VersionStream "${name}" has not resolved ${wanted} of OpenShift ${stream.spec.minor} yet${why}; the pool creates no instance until it has`,
  );
}

/** VersionStreamResolved True: the release new instances get. */
export function followingCondition(pool: Pool, release: InstanceRelease): ConditionUpdate {
  const name = pool.spec.template.versionStreamRef?.name ?? '';
  const source = release.releaseImage ?? `CRC bundle ${release.crcVersion}`;
  return {
    type: 'VersionStreamResolved',
    status: 'True',
    reason: PoolReason.VersionStreamResolved,
    message: `New instances get OpenShift ${release.ocpVersion} (${source}) from VersionStream "${name}"`,
    observedGeneration: pool.metadata.generation,
  };
}
