import type { DiagnosticsTarget } from '../../../client/diagnostics/diagnostics-facts.js';
import { CommandExit, EXIT, badInput } from '../lease/exit-codes.js';
import { leaseNameFlag } from '../lease/lease-flags.js';
import type { ManagementFlags } from '../lease/management-access.js';
import { managementAccess } from '../lease/management-access.js';
import { say, tell } from '../lease/terminal.js';
import { REPORT_FILES, collectReport, writeReport } from './diagnostics-report.js';

export type DiagnoseFlags = ManagementFlags & { output?: string };

const KINDS: readonly DiagnosticsTarget['kind'][] = ['lease', 'instance', 'pool'];

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
    const { files, missing } = await collectReport(api, { kind, name, namespace });
    if (missing) throw new CommandExit(EXIT.error, missing);
    if (output === '-') {
      say(`${files.markdown}\n\`\`\`json\n${files.json}\`\`\``);
      return;
    }
    const folder = await writeReport(output, files);
    tell(`Wrote ${REPORT_FILES.markdown} and ${REPORT_FILES.json} to ${folder}`);
    say(folder);
  } finally {
    await api.close();
  }
}
