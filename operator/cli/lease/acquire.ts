import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { ClusterLease } from '../../../client/api/resources.js';
import { LEASES } from '../../../client/api/resources.js';
import { isAlreadyExists, isInvalid } from '../../../client/kube/api-error.js';
import type { AcquireResult } from '../../../client/lease/acquire.js';
import type { Expected } from '../../../client/lease/acquire.js';
import { acquireLease, MismatchError } from '../../../client/lease/acquire.js';
import { cancelSignal } from '../../../client/lease/cancel-signal.js';
import { leaseObject } from '../../../client/lease/create-lease.js';
import { gitHubRun } from '../../../client/lease/github-run.js';
import type { LeaseUi } from '../../../client/lease/lease-ui.js';
import { ownSubject } from '../../../client/lease/own-identity.js';
import { formatSeconds } from '../../../client/lease/wait-progress.js';
import { badInput, CommandExit, EXIT } from './exit-codes.js';
import type { OutputFormat } from './lease-flags.js';
import { durationFlag, leaseNameFlag, outputFormat, ttlFlag } from './lease-flags.js';
import { leaseSummary } from './lease-summary.js';
import type { Management, ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { requestedBy } from './requested-by.js';
import { say, tell } from './terminal.js';

export interface AcquireFlags extends ManagementFlags {
  pool: string;
  ttl: string;
  timeout: string;
  name?: string;
  kubeconfigOut?: string;
  requestedBy?: string;
  ocpVersion?: string;
  topology?: string;
  onMismatch?: string;
  output?: string;
}

/** The lease client tells its progress on stderr; stdout stays for the answer. */
const terminalUi: LeaseUi = {
  info: tell,
  warning: tell,
  group: (_title, work) => work(),
  // Nothing secret is ever told here: the kubeconfig goes to its file only.
  secret: () => undefined,
};

/** How a lease that was not bound ends the command (docs/reference/cli.md). */
const EXIT_OF: Record<Exclude<AcquireResult['kind'], 'bound'>, number> = {
  failed: EXIT.leaseFailed,
  deleted: EXIT.leaseFailed,
  'timed-out': EXIT.timeout,
  cancelled: EXIT.interrupted,
};

/**
 * `guestcluster lease acquire`: creates a lease, waits with the lease client's progress lines (on
 * stderr) until it is bound, writes the guest kubeconfig (mode 0600) and prints its path (or the
 * lease as JSON). A lease that will not be bound (failed, timed out, interrupted) is deleted.
 */
export async function acquire(flags: AcquireFlags): Promise<void> {
  const output = outputFormat(flags.output);
  const name = flags.name
    ? leaseNameFlag('--name', flags.name)
    : `lease-${randomBytes(4).toString('hex')}`;
  const ttl = ttlFlag(flags.ttl);
  const timeoutMs = durationFlag('--timeout', flags.timeout);
  if (timeoutMs <= 0) throw badInput(`--timeout is "${flags.timeout}"; expected more than 0`);
  const expected = expectedFlags(flags);
  const management = managementAccess(flags);
  const { namespace } = management;
  const kubeconfigOut = path.resolve(
    flags.kubeconfigOut ??
      path.join(os.homedir(), '.kube', 'guestcluster', `${namespace}.${name}.kubeconfig`),
  );
  const cancel = cancelSignal();
  try {
    const lease = await createLease(management, {
      name,
      pool: flags.pool,
      ttl,
      requestedBy: flags.requestedBy || requestedBy(),
      ocpVersion: expected.expectedOcpVersion,
    });
    const result = await acquireLease({
      api: management.api,
      ui: terminalUi,
      lease,
      timeoutMs,
      cancelled: cancel.signal,
      kubeconfigPath: kubeconfigOut,
      expected,
      // Whoever ran this gets no cluster: do not keep it from the pool.
      releaseUnreachable: true,
      wording: { timeout: '--timeout', cancelled: 'Interrupted' },
      handedOver: (bound, waitedSeconds) =>
        Promise.resolve(answer(bound, waitedSeconds, kubeconfigOut, output)),
    }).catch((error: unknown) => {
      // Released already: the lease did not give what was asked, as a failed lease.
      if (error instanceof MismatchError) throw new CommandExit(EXIT.leaseFailed, error.message);
      throw error;
    });
    if (result.kind !== 'bound') throw new CommandExit(EXIT_OF[result.kind], result.message);
  } finally {
    cancel.dispose();
    await management.api.close();
  }
}

const OCP_VERSION = /^\d+\.\d+(\.\d+)?$/;

/**
 * What the cluster must be, as the Action's expected-ocp-version, expected-topology and
 * on-mismatch: the version is asked of the operator too (spec.ocpVersion), so only a matching
 * cluster is bound; a mismatch found once bound releases it (exit 4), or is only told with
 * `--on-mismatch warn`.
 */
function expectedFlags(flags: AcquireFlags): Expected {
  const { ocpVersion, topology } = flags;
  if (ocpVersion !== undefined && !OCP_VERSION.test(ocpVersion))
    throw badInput(
      `--ocp-version is "${ocpVersion}"; expected a minor such as 4.16 (any 4.16.z) or an exact version such as 4.16.10`,
    );
  if (topology !== undefined && topology !== 'crc' && topology !== 'hcp')
    throw badInput(`--topology is "${topology}"; expected crc or hcp`);
  const onMismatch = flags.onMismatch ?? 'fail';
  if (onMismatch !== 'fail' && onMismatch !== 'warn')
    throw badInput(`--on-mismatch is "${onMismatch}"; expected fail or warn`);
  return {
    expectedOcpVersion: ocpVersion,
    expectedTopology: topology,
    onMismatch,
    failSetting: '--on-mismatch is fail',
  };
}

async function createLease(
  management: Management,
  request: { name: string; pool: string; ttl: string; requestedBy: string; ocpVersion?: string },
): Promise<ClusterLease> {
  const { api, namespace } = management;
  const own = await ownSubject(api);
  const object = leaseObject({
    ...request,
    namespace,
    run: gitHubRun({}),
    subjects: 'subject' in own ? [own.subject] : [],
  });
  object.metadata!.labels = { 'app.kubernetes.io/created-by': 'guestcluster-cli' };
  const where = `ClusterLease ${namespace}/${request.name}`;
  let lease: ClusterLease;
  try {
    lease = await api.create(LEASES, object);
  } catch (error) {
    if (isAlreadyExists(error)) throw badInput(`${where} already exists; give another --name`);
    if (isInvalid(error)) throw badInput(`${where} was refused: ${(error as Error).message}`);
    throw error;
  }
  const version = request.ocpVersion ? `, OpenShift ${request.ocpVersion}` : '';
  tell(
    `Created ${where} on ${management.server} (pool ${request.pool}${version}, ttl ${request.ttl === '0' ? 'none' : request.ttl})`,
  );
  if ('unknown' in own)
    tell(
      `Could not tell who you are on the management cluster (${own.unknown}); reading the kubeconfig needs "get secrets" in ${namespace}`,
    );
  return lease;
}

/** The command's answer on stdout: the kubeconfig's path, or the lease as JSON. */
function answer(
  lease: ClusterLease,
  waitedSeconds: number,
  kubeconfigOut: string,
  output: OutputFormat,
): void {
  const status = lease.status ?? {};
  tell(
    `Bound to ClusterInstance ${status.instanceRef?.name} (${status.topology}, OpenShift ${status.ocpVersion}) after ${formatSeconds(Math.round(waitedSeconds))}`,
  );
  if (output === 'json')
    say(
      JSON.stringify(
        {
          ...leaseSummary(lease),
          kubeconfig: kubeconfigOut,
          waitSeconds: Math.round(waitedSeconds),
        },
        null,
        2,
      ),
    );
  else say(kubeconfigOut);
}
