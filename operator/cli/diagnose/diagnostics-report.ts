import path from 'node:path';
import { collectDiagnostics } from '../../../client/diagnostics/collect-diagnostics.js';
import { DIAGNOSTICS_BOUNDS } from '../../../client/diagnostics/diagnostics-bounds.js';
import type { DiagnosticsTarget } from '../../../client/diagnostics/diagnostics-facts.js';
import { apiClientReader } from '../../../client/diagnostics/diagnostics-reader.js';
import type { DiagnosticsFiles } from '../../../client/diagnostics/fit-diagnostics.js';
import { fitDiagnostics } from '../../../client/diagnostics/fit-diagnostics.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { writePrivateFile } from '../../../client/lease/private-file.js';
import { guestCollector } from '../../diagnostics/guest-facts.js';

/** The file names of a report folder (docs/reference/cli.md#diagnose). */
export const REPORT_FILES = { markdown: 'diagnostics.md', json: 'diagnostics.json' } as const;

export interface Report {
  files: DiagnosticsFiles;
  /** Set when the object itself does not exist: the report then says only that. */
  missing?: string;
}

/**
 * One report of the object and what it leads to, the guest included, with the caller's rights
 * (docs/diagnostics.md), fitted to the CLI's total.
 */
export async function collectReport(api: ApiClient, target: DiagnosticsTarget): Promise<Report> {
  const reader = apiClientReader(api);
  const diagnostics = await collectDiagnostics(target, reader, {
    now: Date.now(),
    guest: guestCollector(reader),
  });
  const first = diagnostics.objects[0];
  const files = fitDiagnostics(diagnostics, DIAGNOSTICS_BOUNDS.totalBytes);
  return first?.note === 'not found'
    ? { files, missing: `${first.kind} ${target.namespace}/${target.name} not found` }
    : { files };
}

/** The report's two files (mode 0600) in `folder`, made 0700 if it is new; its absolute path. */
export async function writeReport(folder: string, files: DiagnosticsFiles): Promise<string> {
  const absolute = path.resolve(folder);
  await writePrivateFile(path.join(absolute, REPORT_FILES.markdown), files.markdown);
  await writePrivateFile(path.join(absolute, REPORT_FILES.json), files.json);
  return absolute;
}
