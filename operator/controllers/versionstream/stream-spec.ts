import type { VersionStream } from '../../../client/api/resources.js';
import { inMinor, parseReleaseVersion } from './release-version.js';

export type StreamSpec = Required<Omit<VersionStream['spec'], 'pin'>> & { pin?: string };

/** The spec with the schema's defaults, for objects stored before a default existed. */
export function withDefaults(spec: VersionStream['spec']): StreamSpec {
  return { channelGroup: 'stable', arch: 'amd64', ...spec };
}

/** `<channelGroup>-<minor>`, as the update service names channels: stable-4.19. */
export const channelOf = (spec: StreamSpec): string => `${spec.channelGroup}-${spec.minor}`;

/**
 * What no update service can answer, in words a person can act on; undefined for a valid spec.
 * The schema refuses most of it; EUS channels exist for even minors only (4.16, 4.18, 4.20).
 */
export function invalidSpec(spec: StreamSpec): string | undefined {
  const minor = /^(\d+)\.(\d+)$/.exec(spec.minor);
  if (!minor) return `spec.minor "${spec.minor}" is not a minor version such as 4.19`;
  if (spec.pin !== undefined && !(parseReleaseVersion(spec.pin) && inMinor(spec.pin, spec.minor)))
    return `spec.pin "${spec.pin}" is not a version of spec.minor ${spec.minor}, such as ${spec.minor}.7`;
  if (spec.channelGroup === 'eus' && Number(minor[2]) % 2 === 1)
    return `there is no channel eus-${spec.minor}: Extended Update Support channels exist for even minors only (spec.channelGroup eus, spec.minor ${spec.minor}); use stable or fast`;
  return undefined;
}
