import type { MirrorAnswer } from './crc-mirror.js';
import { compareVersionText, inMinor } from './release-version.js';
import type { StreamSpec } from './stream-spec.js';
import { channelOf } from './stream-spec.js';
import { CRC_MIRROR_UNREACHABLE, ResolvedReason } from './stream-reasons.js';
import type { Release } from './update-graph.js';
import { findRelease, newestInMinor } from './update-graph.js';
import type { GraphAnswer } from './update-service.js';

/** The stream's answer, as status holds it. */
export interface StreamAnswer {
  resolvedVersion?: string;
  releaseImage?: string;
  crcBundleVersion?: string;
}

export interface ResolutionInput {
  spec: StreamSpec;
  previous: StreamAnswer;
  /** The spec changed since the previous answer (metadata.generation ≠ status.observedGeneration). */
  specChanged: boolean;
  graph: GraphAnswer;
  mirror: MirrorAnswer;
}

export interface Resolution {
  answer: StreamAnswer;
  /** The update service answered: lastResolved moves, and the next check is a regular one. */
  reached: boolean;
  condition: { status: 'True' | 'False'; reason: ResolvedReason; message: string };
  /** Reasons to count in guestcluster_version_stream_resolution_errors_total. */
  errors: string[];
}

const where = (spec: StreamSpec): string => `channel ${channelOf(spec)} (${spec.arch})`;

/**
 * The release the stream keeps or takes (ADR 0029): the pin when set; otherwise the newest
 * release of the minor, unless that is older than the previous answer, which stays (the stream
 * moves forward only). The previous answer is left behind only when the spec changed and the
 * graph no longer offers it (another minor, arch or channel).
 */
function hcpAnswer(
  input: ResolutionInput,
  graph: Extract<GraphAnswer, { kind: 'graph' }>['graph'],
) {
  const { spec, previous, specChanged } = input;
  const kept: Release | undefined =
    previous.resolvedVersion &&
    previous.releaseImage &&
    inMinor(previous.resolvedVersion, spec.minor)
      ? { version: previous.resolvedVersion, releaseImage: previous.releaseImage }
      : undefined;
  if (spec.pin) {
    const pinned = findRelease(graph, spec.pin);
    if (pinned) return { release: pinned, note: `pinned by spec.pin to ${spec.pin}` };
    return {
      release: kept,
      missing: `spec.pin ${spec.pin} is not a release of ${where(spec)} in the update service`,
    };
  }
  const offer = newestInMinor(graph, spec.minor);
  const passedOver = offer.skipped.map(
    (s) => `passed over ${s.version}, offered only as a conditional update (${s.risks.join(', ')})`,
  );
  if (!offer.newest)
    return {
      release: kept,
      missing: [`${where(spec)} has no release of ${spec.minor}`, ...passedOver].join('; '),
    };
  const notes = [
    `${offer.newest.version} is the newest release of ${spec.minor} in ${where(spec)}`,
    ...passedOver,
  ];
  if (kept && compareVersionText(offer.newest.version, kept.version) < 0) {
    const offered = findRelease(graph, kept.version);
    if (offered || !specChanged) {
      notes.push(
        `staying on ${kept.version}: the stream moves forward only (set spec.pin to go back)`,
      );
      return { release: offered ?? kept, note: notes.join('; ') };
    }
  }
  return { release: offer.newest, note: notes.join('; ') };
}

/** The CRC bundle version: the pin's, or the mirror's newest of the minor, forward only. */
function crcAnswer(input: ResolutionInput): { version?: string; note?: string; failed?: boolean } {
  const { spec, previous, specChanged, mirror } = input;
  const kept =
    previous.crcBundleVersion && inMinor(previous.crcBundleVersion, spec.minor) && !specChanged
      ? previous.crcBundleVersion
      : undefined;
  if (mirror.kind === 'failed')
    return {
      version: spec.pin ? (kept === spec.pin ? kept : undefined) : kept,
      note: `the CRC mirror could not be read, CRC bundle version kept: ${mirror.message}`,
      failed: true,
    };
  if (mirror.kind === 'none') return { version: spec.pin ? undefined : kept, note: mirror.message };
  if (!spec.pin && kept && compareVersionText(mirror.version, kept) < 0) return { version: kept };
  return { version: mirror.version };
}

/** The stream's next status from what the update service and the CRC mirror said. */
export function resolveStream(input: ResolutionInput): Resolution {
  const { spec, previous, graph } = input;
  const crc = crcAnswer(input);
  const errors = crc.failed ? [CRC_MIRROR_UNREACHABLE] : [];
  const crcNote = crc.note ? [crc.note] : [];
  if (graph.kind === 'failed') {
    // The last good answer, if it answers this spec's minor (not one the spec has left).
    const last =
      previous.resolvedVersion && inMinor(previous.resolvedVersion, spec.minor)
        ? { resolvedVersion: previous.resolvedVersion, releaseImage: previous.releaseImage }
        : {};
    const keeping = last.resolvedVersion
      ? `keeping ${last.resolvedVersion}`
      : 'no version resolved yet';
    return {
      answer: { ...last, crcBundleVersion: crc.version },
      reached: false,
      condition: {
        status: 'False',
        reason: ResolvedReason.UpdateServiceUnreachable,
        message: [
          `the update service did not answer for ${where(spec)}: ${graph.message}; ${keeping}`,
          ...crcNote,
        ].join('; '),
      },
      errors: [ResolvedReason.UpdateServiceUnreachable, ...errors],
    };
  }
  const hcp = hcpAnswer(input, graph.graph);
  const answer: StreamAnswer = {
    resolvedVersion: hcp.release?.version,
    releaseImage: hcp.release?.releaseImage,
    crcBundleVersion: crc.version,
  };
  if ('missing' in hcp) {
    const keeping = hcp.release ? `keeping ${hcp.release.version}` : 'no version to offer';
    return {
      answer,
      reached: true,
      condition: {
        status: 'False',
        reason: ResolvedReason.NoReleaseInChannel,
        message: [`${hcp.missing}; ${keeping}`, ...crcNote].join('; '),
      },
      errors: [ResolvedReason.NoReleaseInChannel, ...errors],
    };
  }
  return {
    answer,
    reached: true,
    condition: {
      status: 'True',
      reason: ResolvedReason.Resolved,
      message: [hcp.note, ...crcNote].join('; '),
    },
    errors,
  };
}
