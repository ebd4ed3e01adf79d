#!/usr/bin/env node
import { Command } from 'commander';

/**
 * The `guestcluster` command. `local` lives with the local environment under test/ and is loaded
 * only when used, so the operator's image does not need it.
 */
export function buildProgram(): Command {
  const program = new Command('guestcluster')
    .description('Disposable OpenShift clusters for CI jobs')
    .showHelpAfterError();

  const local = program
    .command('local')
    .description(
      'The local environment: a real Kubernetes control plane on 127.0.0.1 with a simulated platform',
    );
  local
    .command('up')
    .description('Start the local environment in the background and write .guestcluster/kubeconfig')
    .action(async () => (await import('../../test/local/local-commands.js')).localUp());
  local
    .command('down')
    .description('Stop the local environment; no process is left behind')
    .action(async () => (await import('../../test/local/local-commands.js')).localDown());
  local
    .command('status')
    .description('Show whether the local environment runs, and where')
    .action(async () => (await import('../../test/local/local-commands.js')).localStatus());
  local
    .command('serve', { hidden: true })
    .description(
      'Run the local environment in the foreground (what `local up` starts in the background)',
    )
    .action(async () => (await import('../../test/local/local-daemon.js')).serveLocalEnvironment());
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`guestcluster: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
