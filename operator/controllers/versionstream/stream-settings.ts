import { parseGoDuration } from '../../../client/api/duration.js';
import type { BackoffPolicy } from '../../runtime/backoff.js';

/**
 * Where the operator resolves VersionStreams and how often: the admin's configuration, never a
 * tenant's (streams are cluster-scoped, and name no URL).
 */
export interface VersionStreamSettings {
  /** The OpenShift update service, or a mirror of it for disconnected clusters: http(s), no trailing slash. */
  updateServiceUrl: string;
  /** How often each stream is checked again; spread by ±10% so that streams do not ask in step. */
  intervalMs: number;
  /** How long one request to the update service or the CRC mirror may take. */
  requestTimeoutMs: number;
  /** Waits after the update service did not answer: doubling from base to max. */
  backoff: BackoffPolicy;
}

export const STREAM_SETTINGS = {
  url: '--update-service-url (UPDATE_SERVICE_URL)',
  interval: '--version-stream-interval (VERSION_STREAM_INTERVAL)',
} as const;

export const DEFAULT_UPDATE_SERVICE_URL = 'https://api.openshift.com';
const DEFAULT_INTERVAL = '5m';
const REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 15_000, maxMs: 10 * 60_000, jitter: 0.2 };

export interface VersionStreamFlags {
  updateServiceUrl?: string;
  versionStreamInterval?: string;
}

/** The settings from flags and environment; problems go to `problems`. */
export function versionStreamSettings(
  flags: VersionStreamFlags,
  env: NodeJS.ProcessEnv,
  problems: string[],
): VersionStreamSettings {
  const url = (
    flags.updateServiceUrl ||
    env.UPDATE_SERVICE_URL ||
    DEFAULT_UPDATE_SERVICE_URL
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(url))
    problems.push(`${STREAM_SETTINGS.url} must be an http(s) URL without query (got "${url}")`);
  const interval = flags.versionStreamInterval || env.VERSION_STREAM_INTERVAL || DEFAULT_INTERVAL;
  const intervalMs = parseGoDuration(interval) ?? NaN;
  if (!(intervalMs >= 10_000))
    problems.push(
      `${STREAM_SETTINGS.interval} must be a duration of at least 10s, such as 5m (got "${interval}")`,
    );
  return {
    updateServiceUrl: url,
    intervalMs,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    backoff: DEFAULT_BACKOFF,
  };
}
