import { describe, expect, it } from '@jest/globals';
import type { UploadArtifactOptions, UploadArtifactResponse } from '@actions/artifact';
import { TestClock } from '../test/support/fixtures/test-clock.js';
import type { ActionCore } from './action-core.js';
import type { ArtifactUploader } from './diagnostics-artifact.js';
import {
  artifactName,
  UPLOAD_TIMEOUT_MS,
  uploadDiagnosticsArtifact,
} from './diagnostics-artifact.js';

const RUNNER = {
  ACTIONS_RUNTIME_TOKEN: 'header.claims.signature',
  ACTIONS_RESULTS_URL: 'https://results-receiver.actions.githubusercontent.com/',
  GITHUB_SERVER_URL: 'https://github.com',
};
const FOLDER = {
  where: 'ClusterLease ci/gh-1-1-abc',
  leaseName: 'gh-1-1-abc',
  folder: '/runner/tmp/guestcluster-diagnostics-gh-1-1-abc',
  files: ['diagnostics.md', 'diagnostics.json'],
  retentionDays: 7,
};

/** The log lines the step writes, by kind. */
function recordingCore(): { core: ActionCore; lines: string[] } {
  const lines: string[] = [];
  const core = {
    info: (text: string) => void lines.push(`info: ${text}`),
    warning: (text: string | Error) => void lines.push(`warning: ${String(text)}`),
    group: async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      lines.push(`group: ${name}`);
      return run();
    },
  } as Partial<ActionCore> as ActionCore;
  return { core, lines };
}

/** An uploader that records its calls and answers with `answer`. */
function uploader(answer: () => Promise<UploadArtifactResponse>): ArtifactUploader & {
  calls: { name: string; files: string[]; root: string; options?: UploadArtifactOptions }[];
} {
  const calls: { name: string; files: string[]; root: string; options?: UploadArtifactOptions }[] =
    [];
  return {
    calls,
    uploadArtifact: (name, files, root, options) => {
      calls.push({ name, files, root, options });
      return answer();
    },
  };
}

describe('uploadDiagnosticsArtifact', () => {
  it('uploads the two files as one artifact, kept for the days asked, and names it in the log', async () => {
    const { core, lines } = recordingCore();
    const client = uploader(() => Promise.resolve({ id: 4242, size: 1234 }));
    await uploadDiagnosticsArtifact(core, FOLDER, RUNNER, client);
    expect(client.calls).toEqual([
      {
        name: 'guestcluster-diagnostics-gh-1-1-abc',
        files: [`${FOLDER.folder}/diagnostics.md`, `${FOLDER.folder}/diagnostics.json`],
        root: FOLDER.folder,
        options: { retentionDays: 7 },
      },
    ]);
    expect(lines).toEqual([
      'group: Uploading artifact guestcluster-diagnostics-gh-1-1-abc',
      'info: Uploaded the diagnostics of ClusterLease ci/gh-1-1-abc as artifact guestcluster-diagnostics-gh-1-1-abc (id 4242, 1234 bytes)',
    ]);
  });

  it("leaves the retention to the repository's setting for 0", async () => {
    const client = uploader(() => Promise.resolve({ id: 1, size: 1 }));
    await uploadDiagnosticsArtifact(
      recordingCore().core,
      { ...FOLDER, retentionDays: 0 },
      RUNNER,
      client,
    );
    expect(client.calls[0]!.options).toEqual({ retentionDays: undefined });
  });

  const NO_SERVICE =
    'this runner gives the step no artifact service (ACTIONS_RUNTIME_TOKEN or ACTIONS_RESULTS_URL is not set)';
  it.each([
    [{ ACTIONS_RUNTIME_TOKEN: '' }, NO_SERVICE],
    [{ ACTIONS_RESULTS_URL: '' }, NO_SERVICE],
    [
      { GITHUB_SERVER_URL: 'https://github.example.com' },
      'artifacts of this kind are not available on GitHub Enterprise Server (https://github.example.com)',
    ],
  ])('says why it uploads nothing on a runner with %j', async (change, why) => {
    const { core, lines } = recordingCore();
    const client = uploader(() => Promise.resolve({ id: 1 }));
    await uploadDiagnosticsArtifact(core, FOLDER, { ...RUNNER, ...change }, client);
    expect(client.calls).toEqual([]);
    expect(lines).toEqual([
      `info: No artifact uploaded: ${why}; the files stay in ${FOLDER.folder}`,
    ]);
  });

  it('warns, naming the artifact and the error, when the upload fails', async () => {
    const { core, lines } = recordingCore();
    const client = uploader(() =>
      Promise.reject(new Error('Failed to CreateArtifact: Received non-retryable error')),
    );
    await uploadDiagnosticsArtifact(core, FOLDER, RUNNER, client);
    expect(lines.at(-1)).toBe(
      `warning: Could not upload the diagnostics of ClusterLease ci/gh-1-1-abc as artifact guestcluster-diagnostics-gh-1-1-abc: Failed to CreateArtifact: Received non-retryable error; the files stay in ${FOLDER.folder}`,
    );
  });

  it('gives up at its deadline when the service never answers, and says so', async () => {
    const clock = new TestClock();
    const { core, lines } = recordingCore();
    const client = uploader(() => new Promise<never>(() => undefined));
    const upload = uploadDiagnosticsArtifact(core, FOLDER, RUNNER, client, clock);
    await Promise.resolve();
    expect(lines).toEqual(['group: Uploading artifact guestcluster-diagnostics-gh-1-1-abc']);
    clock.advance(UPLOAD_TIMEOUT_MS);
    await upload;
    expect(lines.at(-1)).toBe(
      `warning: Could not upload the diagnostics of ClusterLease ci/gh-1-1-abc as artifact guestcluster-diagnostics-gh-1-1-abc: not done within 30s; the files stay in ${FOLDER.folder}`,
    );
  });
});

describe('artifactName', () => {
  it('keeps a lease name and replaces what an artifact name may not hold', () => {
    expect(artifactName('gh-42-1-0a1b2c3d')).toBe('guestcluster-diagnostics-gh-42-1-0a1b2c3d');
    expect(artifactName('a/b:c*d')).toBe('guestcluster-diagnostics-a-b-c-d');
  });
});
