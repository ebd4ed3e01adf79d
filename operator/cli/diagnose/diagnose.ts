import path from 'node:path';
import { collectDiagnostics } from '../../../client/diagnostics/collect-diagnostics.js';
import { DIAGNOSTICS_BOUNDS } from '../../../client/diagnostics/diagnostics-bounds.js';
import type { DiagnosticsTarget } from '../../../client/diagnostics/diagnostics-facts.js';
import { apiClientReader } from '../../../client/diagnostics/diagnostics-reader.js';
import { fitDiagnostics } from '../../../client/diagnostics/fit-diagnostics.js';
import { writePrivateFile } from '../../../client/lease/private-file.js';
import { guestCollector } from '../../diagnostics/guest-facts.js';
import { CommandExit, EXIT, badInput } from '../lease/exit-codes.js';
import { leaseNameFlag } from '../lease/lease-flags.js';
import type { ManagementFlags } from '../lease/management-access.js';
import { managementAccess } from '../lease/management-access.js';
import { say, tell } from '../lease/terminal.js';

export type DiagnoseFlags = ManagementFlags & { output?: string };

const KINDS: readonly DiagnosticsTarget['kind'][] = ['lease', 'instance', 'pool'];

/** The file names in --output DIR (docs/reference/cli.md#diagnose). */
export const REPORT_FILES = { markdown: 'diagnostics.md', json: 'diagnostics.json' } as const;

function targetKind(value: string): DiagnosticsTarget['kind'] {
  const kind = KINDS.find((k) => k === value);
  if (!kind) throw badInput(`KIND is "${value}"; expected lease, instance or pool`);
  return kind;
}

/**
 * `guestcluster diagnose lease|instance|pool NAME`: one report of the object and what it leads
 * to, without any credential (docs/diagnostics.md), as Markdown and JSON in --output DIR, or on
 * stdout (`-`, the default: the Markdown, then the JSON in a fenced block).
 */
export async function diagnose(
  kindArgument: string,
  nameArgument: string,
  flags: DiagnoseFlags,
): Promise<void> {
  const kind = targetKind(kindArgument);
  const name = leaseNameFlag('NAME', nameArgument);
  const output = flags.output ?? '-';
  const { api, namespace } = managementAccess(flags);
  try {
    const reader = apiClientReader(api);
    const diagnostics = await collectDiagnostics({ kind, name, namespace }, reader, {
      now: Date.now(),
      guest: guestCollector(reader),
    });
    if (diagnostics.objects[0]?.note === 'not found')
      throw new CommandExit(
        EXIT.error,
        `${diagnostics.objects[0].kind} ${namespace}/${name} not found`,
      );
    const files = fitDiagnostics(diagnostics, DIAGNOSTICS_BOUNDS.totalBytes);
    if (output === '-') {
      say(`${files.markdown}\n\`\`\`json\n${files.json}\`\`\``);
      return;
    }
    const folder = path.resolve(output);
    await writePrivateFile(path.join(folder, REPORT_FILES.markdown), files.markdown);
    await writePrivateFile(path.join(folder, REPORT_FILES.json), files.json);
    tell(`Wrote ${REPORT_FILES.markdown} and ${REPORT_FILES.json} to ${folder}`);
    say(folder);
  } finally {
    await api.close();
  }
}
