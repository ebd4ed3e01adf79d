#!/usr/bin/env node
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import type { OperatorFlags } from '../config.js';
import { completionScript } from './completion.js';
import { addDiagnoseCommand } from './diagnose-command.js';
import { addLeaseCommands } from './lease-commands.js';
import { loadLocalEnvironment } from './local-environment.js';

/** Run as `kubectl guestcluster …`, kubectl execs `kubectl-guestcluster`: help names it so. */
const KUBECTL_PLUGIN = 'kubectl-guestcluster';

/**
 * The `guestcluster` command. `local` lives with the local environment under dev/ and is loaded
 * only when used, so the operator's image does not carry it.
 */
export function buildProgram(invokedAs = path.basename(process.argv[1] ?? '')): Command {
  const program = new Command(invokedAs === KUBECTL_PLUGIN ? KUBECTL_PLUGIN : 'guestcluster')
    .description('Disposable OpenShift clusters for CI jobs')
    .showHelpAfterError()
    // Wrong usage throws (exit 2 below) instead of exiting with commander's 1.
    .exitOverride();
  if (invokedAs === KUBECTL_PLUGIN)
    program.usage('[options] [command]  (as: kubectl guestcluster …)');

  program
    .command('operator')
    .description('Run the operator against the current kubeconfig context')
    .option(
      '--metrics-bind-address <address>',
      'where /metrics listens (host:port, :port, or 0 to disable; default :8443, or :8080 with --metrics-secure=false)',
    )
    .option(
      '--metrics-secure <true|false>',
      'serve /metrics over HTTPS to clients the apiserver authenticates and authorizes for get /metrics; false: plain HTTP to anyone',
      'true',
    )
    .option(
      '--metrics-cert-path <dir>',
      "folder with the metrics serving certificate's tls.crt and tls.key (default: a self-signed one)",
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
    .option(
      '--workers <count|name=count,...>',
      'concurrent reconciles: N for every controller, or per controller (clusterinstance=16,clusterlease=8); default clusterinstance=8, clusterlease=4, clusterpool=2, guesthealth=2, the others 1',
    )
    .option(
      '--watch-namespace <namespace>',
      'act on pools, leases and instances of this namespace only (default: all namespaces)',
    )
    .option(
      '--scope-labels <key=value,...>',
      'serve only namespaces, CRCBundles and VersionStreams carrying these labels, beside other operators (default: all)',
    )
    .option(
      '--controllers <names>',
      'comma-separated controllers to run (clusterpool, clusterlease, clusterinstance, crcbundle, cirun, versionstream, ciaccesspolicy); default all',
    )
    .option(
      '--allowed-crc-versions <versions>',
      'comma-separated CRC versions pools may name in crcVersion (default: any; env ALLOWED_CRC_VERSIONS)',
    )
    .option(
      '--max-preparing-bundles <count>',
      'CRCBundles downloaded at once; the others wait (default 2; env MAX_PREPARING_BUNDLES)',
    )
    .option(
      '--max-building-bundles <count>',
      'CRCBundle builds (spec.build) run at once; the others wait (default 1; env MAX_BUILDING_BUNDLES)',
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
      '--github-namespace-max-runs <count>',
      "distinct runs one namespace's leases are asked about; the others say RunCapReached (default 20; env GITHUB_NAMESPACE_MAX_RUNS)",
    )
    .option(
      '--github-namespace-requests-per-hour <count>',
      "requests to GitHub one namespace's leases may cost per hour; then RequestBudgetExhausted (default 1000; env GITHUB_NAMESPACE_REQUESTS_PER_HOUR)",
    )
    .option(
      '--update-service-url <url>',
      'OpenShift update service that VersionStreams are resolved through, or a mirror of it (default https://api.openshift.com; env UPDATE_SERVICE_URL)',
    )
    .option(
      '--version-stream-interval <duration>',
      'how often each VersionStream is checked again (default 5m; env VERSION_STREAM_INTERVAL)',
    )
    .option(
      '--token-exchange-bind-address <address>',
      'where the CI token exchange listens over HTTPS (host:port, :port, or 0 for off; default 0; env TOKEN_EXCHANGE_BIND_ADDRESS)',
    )
    .option(
      '--token-exchange-cert-path <dir>',
      "folder with the exchange's serving certificate tls.crt and tls.key (default: self-signed; env TOKEN_EXCHANGE_CERT_PATH)",
    )
    .option(
      '--token-exchange-issuer-ca-file <path>',
      "PEM file trusted for OIDC issuers besides the system roots, e.g. a GitHub Enterprise Server's CA (env TOKEN_EXCHANGE_ISSUER_CA_FILE)",
    )
    .option(
      '--token-exchange-burst <count>',
      'exchanges one CI subject may make at once (default 5; env TOKEN_EXCHANGE_BURST)',
    )
    .option(
      '--token-exchange-per-minute <count>',
      'exchanges one CI subject may make per minute after the burst (default 6; env TOKEN_EXCHANGE_PER_MINUTE)',
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
      'Lease a guest cluster from the local environment with the lease client the Action uses; print how to use it',
    )
    .option('--pool <name>', 'the pool to lease from (default: the first of the environment)')
    .action(async (options: { pool?: string }) => (await loadLocalEnvironment()).lease(options));
  local
    .command('serve', { hidden: true })
    .description(
      'Run the local environment in the foreground (what `local up` starts in the background)',
    )
    .action(async () => (await loadLocalEnvironment()).serve());

  addLeaseCommands(program);
  addDiagnoseCommand(program);
  program
    .command('completion')
    .description('Print a shell completion script: source <(guestcluster completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => {
      if (shell !== 'bash' && shell !== 'zsh')
        throw Object.assign(new Error(`shell is "${shell}"; expected bash or zsh`), {
          exitCode: 2,
        });
      process.stdout.write(completionScript(program, shell));
    });
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCodeOf(error);
}

/**
 * 0 for help; 2: the command was used wrongly (a flag, invalid configuration); a lease command's
 * own code (lease/exit-codes.ts); 1: it failed. Commander has printed its own errors already.
 */
function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  process.stderr.write(`guestcluster: ${error instanceof Error ? error.message : String(error)}\n`);
  const own = (error as { exitCode?: unknown }).exitCode;
  if (typeof own === 'number') return own;
  return error instanceof Error && error.name === 'ConfigError' ? 2 : 1;
}
