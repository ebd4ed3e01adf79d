import { errorMessage } from '../../../client/lease/lease-ui.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { collectReport, writeReport } from '../diagnose/diagnostics-report.js';
import { tell } from './terminal.js';

/** Collecting never holds up the release for longer than this (as the Action's post). */
const COLLECT_TIMEOUT_MS = 60_000;

/**
 * After a failed job, the lease's diagnostics (docs/diagnostics.md#the-lease-cli) in `folder`:
 * what the Action puts in the job summary, for the CI system to keep as an artifact. Never fails
 * the release: a problem is said on stderr, and the release or hold goes on. The folder's path,
 * or null when nothing was written.
 */
export async function writeFailureDiagnostics(
  api: ApiClient,
  lease: { name: string; namespace: string },
  folder: string,
): Promise<string | null> {
  const where = `ClusterLease ${lease.namespace}/${lease.name}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not done within ${COLLECT_TIMEOUT_MS / 1000}s`)),
        COLLECT_TIMEOUT_MS,
      );
    });
    const { files } = await Promise.race([
      collectReport(api, { kind: 'lease', ...lease }),
      timeout,
    ]);
    const written = await writeReport(folder, files);
    tell(
      `The job failed: wrote the diagnostics of ${where} to ${written} (diagnostics.md, diagnostics.json)`,
    );
    return written;
  } catch (error) {
    tell(`Could not write the diagnostics of ${where}: ${errorMessage(error)}`);
    return null;
  } finally {
    clearTimeout(timer);
  }
}
