#!/usr/bin/env node
import { Command } from 'commander';
import type { OperatorFlags } from '../config.js';
import { loadLocalEnvironment } from './local-environment.js';

/**
 * The `guestcluster` command. `local` lives with the local environment under dev/ and is loaded
 * only when used, so the operator's image does not carry it.
 */
export function buildProgram(): Command {
  const program = new Command('guestcluster')
    .description('Disposable OpenShift clusters for CI jobs')
    .showHelpAfterError();

  program
    .command('operator')
    .description('Run the operator against the current kubeconfig context')
    .option(
      '--metrics-bind-address <address>',
      'where /metrics listens (host:port, :port, or 0 to disable)',
      ':8080',
    )
    .option(
      '--health-probe-bind-address <address>',
      'where /healthz and /readyz listen (or 0)',
      ':8081',
    )
    .option('--leader-elect', 'run controllers only while holding the leader-election lease', false)
    .option(
      '--leader-elect-lease-duration <duration>',
      'how long a standby waits before taking over',
      '15s',
    )
    .option(
      '--leader-elect-renew-deadline <duration>',
      'how long the leader tries to renew before giving up',
      '10s',
    )
    .option(
      '--leader-elect-retry-period <duration>',
      'how often to try to acquire or renew the lease',
      '2s',
    )
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--workers <count>', 'concurrent reconciles per controller', '1')
    .option(
      '--watch-namespace <namespace>',
      'act on pools, leases and instances of this namespace only (default: all namespaces)',
    )
    .option(
      '--controllers <names>',
      'comma-separated controllers to run (clusterpool, clusterlease, clusterinstance, crcbundle, cirun); default all',
    )
    .option(
      '--allowed-crc-versions <versions>',
      'comma-separated CRC versions pools may name in crcVersion (default: any; env ALLOWED_CRC_VERSIONS)',
    )
    .option(
      '--max-preparing-bundles <count>',
      'CRCBundles prepared at once; the others wait (default 2; env MAX_PREPARING_BUNDLES)',
    )
    .option(
      '--github-credentials-secret <name>',
      'Secret in the operator namespace with a GitHub token or App credentials: release leases whose job has completed (default: off; env GITHUB_CREDENTIALS_SECRET)',
    )
    .option(
      '--github-api-url <url>',
      'GitHub REST API root, https://HOST/api/v3 for GitHub Enterprise Server (default https://api.github.com; env GITHUB_API_URL)',
    )
    .option(
      '--github-allowed-repositories <list>',
      'comma-separated owner/repo or owner/* whose runs may be asked about; required with the Secret (env GITHUB_ALLOWED_REPOSITORIES)',
    )
    .option(
      '--github-ca-file <path>',
      "PEM file to check the GitHub API's certificate against (default: system roots; env GITHUB_CA_FILE)",
    )
    .option(
      '--github-poll-interval <duration>',
      "how often a lease's run is asked about (default 2m; env GITHUB_POLL_INTERVAL)",
    )
    .option(
      '--timings <key=duration,...>',
      'lease and pool waits, e.g. lease.waitingResync=5m,pool.scaleDownIdle=2m (env OPERATOR_TIMINGS)',
    )
    .action(async (flags: OperatorFlags) =>
      (await import('./operator-command.js')).runOperator(flags),
    );

  const local = program
    .command('local')
    .description(
      'The local environment: a real Kubernetes control plane on 127.0.0.1 with a simulated platform',
    );
  local
    .command('up')
    .description('Start the local environment in the background and write .guestcluster/kubeconfig')
    .action(async () => (await loadLocalEnvironment()).up());
  local
    .command('down')
    .description('Stop the local environment; no process is left behind')
    .action(async () => (await loadLocalEnvironment()).down());
  local
    .command('status')
    .description('Show whether the local environment runs, and where')
    .action(async () => (await loadLocalEnvironment()).status());
  local
    .command('lease')
    .description(
      "Lease a guest cluster from the local environment with the Action's own code; print how to use it",
    )
    .option('--pool <name>', 'the pool to lease from (default: the first of the environment)')
    .action(async (options: { pool?: string }) => (await loadLocalEnvironment()).lease(options));
  local
    .command('serve', { hidden: true })
    .description(
      'Run the local environment in the foreground (what `local up` starts in the background)',
    )
    .action(async () => (await loadLocalEnvironment()).serve());
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`guestcluster: ${error instanceof Error ? error.message : String(error)}\n`);
  // 2: the command was used wrongly (invalid configuration); 1: it failed.
  process.exitCode = error instanceof Error && error.name === 'ConfigError' ? 2 : 1;
}
