import type { Command } from 'commander';
import type { DiagnoseFlags } from './diagnose/diagnose.js';

/** `guestcluster diagnose KIND NAME`, loaded when used. */
export function addDiagnoseCommand(program: Command): void {
  program
    .command('diagnose')
    .description(
      'Collect the status, Events, crc-agent log tail and guest view of a lease, instance or pool, without any credential',
    )
    .argument('<kind>', 'lease, instance or pool')
    .argument('<name>', 'its name')
    .option(
      '--kubeconfig <file>',
      "the management cluster (default: $KUBECONFIG, ~/.kube/config, or the pod's ServiceAccount)",
    )
    .option('-n, --namespace <namespace>', "its namespace (default: the context's or the pod's)")
    .option(
      '-o, --output <dir|->',
      'a folder for diagnostics.md and diagnostics.json, or - for stdout',
      '-',
    )
    .action(async (kind: string, name: string, flags: DiagnoseFlags) =>
      (await import('./diagnose/diagnose.js')).diagnose(kind, name, flags),
    );
}
