import type { Command } from 'commander';
import type { AcquireFlags } from './lease/acquire.js';
import type { ManagementFlags } from './lease/management-access.js';
import type { ReleaseFlags } from './lease/release.js';

type Flags = ManagementFlags & { output?: string };

/** The flags every lease verb takes: where the management cluster is, and the output. */
function withManagement(command: Command): Command {
  return command
    .option(
      '--kubeconfig <file>',
      "the management cluster (default: $KUBECONFIG, ~/.kube/config, or the pod's ServiceAccount)",
    )
    .option(
      '-n, --namespace <namespace>',
      "namespace of the pool and the lease (default: the context's or the pod's)",
    )
    .option('-o, --output <format>', 'text or json', 'text')
    .option(
      '--token-exchange <url>',
      "exchange the CI's OIDC ID token ($GUESTCLUSTER_ID_TOKEN, or --id-token-file) at the operator's token exchange instead of a stored credential; needs --server",
    )
    .option('--server <url>', 'the management API server, with --token-exchange')
    .option(
      '--certificate-authority <file>',
      "PEM file of the management API server's CA, with --token-exchange (default: system roots)",
    )
    .option(
      '--token-exchange-ca <file>',
      "PEM file of the token exchange's CA (default: system roots)",
    )
    .option('--id-token-file <file>', 'read the ID token from this file, anew for each exchange');
}

/**
 * `guestcluster lease …`: lease guest clusters from any CI or a terminal with the lease client the
 * Action uses (client/lease). Each verb is loaded when used, so `guestcluster operator` starts as
 * before.
 */
export function addLeaseCommands(program: Command): void {
  const lease = program
    .command('lease')
    .description(
      'Lease guest clusters from a pool: acquire, release, hold, extend, list, kubeconfig',
    );
  withManagement(lease.command('acquire'))
    .description(
      'Lease a cluster, wait until it is bound, write its kubeconfig (mode 0600) and print the path',
    )
    .requiredOption('--pool <name>', 'the ClusterPool to lease from')
    .option('--ttl <duration>', "the lease's lifetime once bound, at most 8760h (0: none)", '6h')
    .option(
      '--timeout <duration>',
      'how long to wait for binding; then the lease is deleted (exit 3)',
      '30m',
    )
    .option('--name <name>', "the lease's name (default: lease-<random>)")
    .option(
      '--kubeconfig-out <file>',
      'where to write the guest kubeconfig (default: ~/.kube/guestcluster/<namespace>.<name>.kubeconfig)',
    )
    .option(
      '--requested-by <text>',
      'recorded in spec.requestedBy (default: the CI job, or user@host)',
    )
    .option(
      '--ocp-version <version>',
      'the OpenShift version the cluster must have (4.16: any 4.16.z); only such a cluster is bound',
    )
    .option('--topology <crc|hcp>', 'the topology the cluster must have')
    .option(
      '--on-mismatch <fail|warn>',
      'when the bound cluster is not as expected: fail (release it, exit 4) or warn',
      'fail',
    )
    .action(async (flags: AcquireFlags) => (await import('./lease/acquire.js')).acquire(flags));
  withManagement(lease.command('release').argument('<name>', 'the lease'))
    .description(
      'Release a lease and wait until it is gone (a lease already gone is fine); after a failed job, write its diagnostics and hold it when asked',
    )
    .option(
      '--job-status <status>',
      'how the CI job went: success, failure or cancelled (GitLab: "$CI_JOB_STATUS")',
    )
    .option(
      '--hold-on-failure <duration>',
      "after a failed job, keep the cluster this long instead (within the pool's limits)",
    )
    .option(
      '--diagnostics-out <dir>',
      "after a failed job, the lease's diagnostics go here (default: ./guestcluster-diagnostics-<name>)",
    )
    .option('--no-diagnostics', 'after a failed job, write no diagnostics')
    .action(async (name: string, flags: ReleaseFlags) =>
      (await import('./lease/release.js')).release(name, flags),
    );
  withManagement(lease.command('hold').argument('<name>', 'the lease'))
    .description(
      "Keep a bound lease's cluster for a while from now, for debugging; the operator releases it then",
    )
    .requiredOption('--for <duration>', "how long, within the pool's maxHoldDuration")
    .action(async (name: string, flags: Flags & { for: string }) =>
      (await import('./lease/hold.js')).hold(name, flags),
    );
  withManagement(lease.command('extend').argument('<name>', 'the lease'))
    .description("Set a lease's ttl (counted from when it was bound) and show its new expiry")
    .requiredOption('--ttl <duration>', "the new lifetime, within the pool's maxLeaseDuration")
    .action(async (name: string, flags: Flags & { ttl: string }) =>
      (await import('./lease/extend.js')).extend(name, flags),
    );
  withManagement(lease.command('list'))
    .description(
      "The namespace's leases: name, phase, pool, instance, queue position, expiry, requested by",
    )
    .option('--pool <name>', 'only the leases of this pool')
    .action(async (flags: Flags & { pool?: string }) =>
      (await import('./lease/list.js')).list(flags),
    );
  withManagement(lease.command('kubeconfig').argument('<name>', 'the lease'))
    .description(
      'Write (--kubeconfig-out, mode 0600) or print the guest kubeconfig of a bound lease',
    )
    .option('--kubeconfig-out <file>', 'write it to this file and print the path')
    .action(async (name: string, flags: Flags & { kubeconfigOut?: string }) =>
      (await import('./lease/kubeconfig.js')).kubeconfig(name, flags),
    );
}
