import path from 'node:path';
import type { UploadArtifactOptions, UploadArtifactResponse } from '@actions/artifact';
import { DefaultArtifactClient } from '@actions/artifact';
import { errorMessage } from '../client/lease/lease-ui.js';
import type { ActionCore } from './action-core.js';

/** Uploading never holds up the release for longer than this (two small files take seconds). */
export const UPLOAD_TIMEOUT_MS = 30_000;

/** What uploads: `DefaultArtifactClient`, or a test's own. */
export interface ArtifactUploader {
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: UploadArtifactOptions,
  ): Promise<UploadArtifactResponse>;
}

/** The deadline's timers; tests hand in their clock. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): NodeJS.Timeout;
  clearTimeout(timer: NodeJS.Timeout): void;
}

export interface DiagnosticsFolder {
  /** `ClusterLease ns/name`, for the log. */
  where: string;
  leaseName: string;
  folder: string;
  /** File names in `folder`. */
  files: string[];
  /** 0: the repository's default retention. */
  retentionDays: number;
}

const SYSTEM_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

/** Characters an artifact name may not hold (@actions/artifact's path-and-artifact-name-validation). */
const NOT_IN_ARTIFACT_NAMES = /[":<>|*?\\/\r\n]/g;

/** `guestcluster-diagnostics-<lease>`: a lease's name is a DNS name already; the rest is belt and braces. */
export function artifactName(leaseName: string): string {
  return `guestcluster-diagnostics-${leaseName}`.replace(NOT_IN_ARTIFACT_NAMES, '-');
}

/**
 * Why this runner cannot take an artifact, or undefined when it can: the runner hands a step the
 * results service's URL and its token, and GitHub Enterprise Server has no such service for this
 * client (@actions/artifact's config.ts isGhes).
 */
export function noArtifactService(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.ACTIONS_RUNTIME_TOKEN || !env.ACTIONS_RESULTS_URL)
    return 'this runner gives the step no artifact service (ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL is not set)';
  let host = '';
  try {
    host = new URL(env.GITHUB_SERVER_URL || 'https://github.com').hostname.toLowerCase();
  } catch {
    // An unreadable server URL is no github.com either.
  }
  if (host !== 'github.com' && !host.endsWith('.ghe.com') && !host.endsWith('.localhost'))
    return `artifacts of this kind are not available on GitHub Enterprise Server (${env.GITHUB_SERVER_URL})`;
  return undefined;
}

/**
 * Uploads the diagnostics folder as one artifact (docs/diagnostics.md#the-github-action), within
 * UPLOAD_TIMEOUT_MS. Never throws: a runner without the service is an info line, a failure a
 * warning naming the artifact and the error, and the files stay where they are either way.
 */
export async function uploadDiagnosticsArtifact(
  actions: ActionCore,
  diagnostics: DiagnosticsFolder,
  env: NodeJS.ProcessEnv,
  uploader: ArtifactUploader = new DefaultArtifactClient(),
  timers: Timers = SYSTEM_TIMERS,
): Promise<void> {
  const name = artifactName(diagnostics.leaseName);
  const missing = noArtifactService(env);
  if (missing) {
    actions.info(`No artifact uploaded: ${missing}; the files stay in ${diagnostics.folder}`);
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = timers.setTimeout(
        () => reject(new Error(`not done within ${UPLOAD_TIMEOUT_MS / 1000}s`)),
        UPLOAD_TIMEOUT_MS,
      );
    });
    // The library logs each stage; a group folds them under one line.
    const uploaded = await actions.group(`Uploading artifact ${name}`, () =>
      Promise.race([
        uploader.uploadArtifact(
          name,
          diagnostics.files.map((file) => path.join(diagnostics.folder, file)),
          diagnostics.folder,
          { retentionDays: diagnostics.retentionDays || undefined },
        ),
        timeout,
      ]),
    );
    actions.info(
      `Uploaded the diagnostics of ${diagnostics.where} as artifact ${name} (id ${uploaded.id}, ${uploaded.size} bytes)`,
    );
  } catch (error) {
    actions.warning(
      `Could not upload the diagnostics of ${diagnostics.where} as artifact ${name}: ${errorMessage(error)}; the files stay in ${diagnostics.folder}`,
    );
  } finally {
    if (timer) timers.clearTimeout(timer);
  }
}
