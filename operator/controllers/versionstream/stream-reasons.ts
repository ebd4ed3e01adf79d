/** The Resolved condition's reasons (docs/reference/kinds.md#versionstream). */
export const ResolvedReason = {
  Resolved: 'Resolved',
  NoReleaseInChannel: 'NoReleaseInChannel',
  /** The update service did not answer; the last good answer stays. */
  UpdateServiceUnreachable: 'UpdateServiceUnreachable',
  InvalidSpec: 'InvalidSpec',
} as const;
export type ResolvedReason = (typeof ResolvedReason)[keyof typeof ResolvedReason];

export const RESOLVED_CONDITION = 'Resolved';
/** The Event of a stream whose version (or CRC bundle version) changed. */
export const MOVED_EVENT = 'VersionStreamMoved';
/** The metric reason of a CRC mirror that could not be read; the stream's condition does not change for it. */
export const CRC_MIRROR_UNREACHABLE = 'CRCMirrorUnreachable';

/** Every reason guestcluster_version_stream_resolution_errors_total counts. */
export const ERROR_REASONS = [
  ResolvedReason.UpdateServiceUnreachable,
  ResolvedReason.NoReleaseInChannel,
  ResolvedReason.InvalidSpec,
  CRC_MIRROR_UNREACHABLE,
] as const;
