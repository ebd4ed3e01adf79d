import os from 'node:os';
import path from 'node:path';
import { collectDiagnostics } from '../client/diagnostics/collect-diagnostics.js';
import { apiClientReader } from '../client/diagnostics/diagnostics-reader.js';
import { fitDiagnostics } from '../client/diagnostics/fit-diagnostics.js';
import { ApiClient } from '../client/kube/api-client.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import { writePrivateFile } from '../client/lease/private-file.js';
import type { ActionCore } from './action-core.js';
import { uploadDiagnosticsArtifact } from './diagnostics-artifact.js';
import { readDiagnosticsOnFailure, readDiagnosticsRetentionDays } from './inputs.js';
import { inputAccess } from './management-access.js';
import { maskManagementInputs } from './masking.js';
import type { SavedLease } from './state.js';

/** A step's summary may hold 1 MiB; the diagnostics take at most half of it. */
const SUMMARY_BYTES = 512 * 1024;
/** Collecting never holds up the release for longer than this. */
const COLLECT_TIMEOUT_MS = 60_000;

/**
 * After a failed job (input job-status, as hold-on-failure reads it), the lease's diagnostics
 * (docs/diagnostics.md#the-github-action), from the management cluster with the Action's own
 * credentials, in the job summary and in RUNNER_TEMP/guestcluster-diagnostics-<lease>/, uploaded
 * from there as an artifact (diagnostics-artifact.ts). Never fails post: a problem is a warning,
 * and the release goes on.
 */
export async function attachDiagnostics(
  actions: ActionCore,
  saved: SavedLease,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (actions.getInput('job-status') !== 'failure') return;
  const where = `ClusterLease ${saved.namespace}/${saved.leaseName}`;
  let api: ApiClient | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (!readDiagnosticsOnFailure((name) => actions.getInput(name))) return;
    maskManagementInputs(actions);
    api = new ApiClient(inputAccess(actions, saved.namespace));
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not done within ${COLLECT_TIMEOUT_MS / 1000}s`)),
        COLLECT_TIMEOUT_MS,
      );
    });
    const target = { kind: 'lease' as const, name: saved.leaseName, namespace: saved.namespace };
    const diagnostics = await Promise.race([
      collectDiagnostics(target, apiClientReader(api), { now: Date.now() }),
      timeout,
    ]);
    const files = fitDiagnostics(diagnostics, SUMMARY_BYTES);
    const folder = path.join(
      env.RUNNER_TEMP || os.tmpdir(),
      `guestcluster-diagnostics-${saved.leaseName}`,
    );
    await writePrivateFile(path.join(folder, 'diagnostics.md'), files.markdown);
    await writePrivateFile(path.join(folder, 'diagnostics.json'), files.json);
    await actions.summary.addRaw(files.markdown, true).write();
    actions.info(
      `The job failed: wrote the diagnostics of ${where} to the job summary and to ${folder} (diagnostics.md, diagnostics.json)`,
    );
    const retentionDays = readDiagnosticsRetentionDays((name) => actions.getInput(name));
    await uploadDiagnosticsArtifact(
      actions,
      {
        where,
        leaseName: saved.leaseName,
        folder,
        files: ['diagnostics.md', 'diagnostics.json'],
        retentionDays,
      },
      env,
    );
  } catch (error) {
    actions.warning(`Could not attach the diagnostics of ${where}: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
    await api?.close();
  }
}
