import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { leaseObject } from '../../../action/acquire-lease.js';
import { cancelSignal } from '../../../action/cancel-signal.js';
import { gitHubRun } from '../../../action/github-run.js';
import { readGuestKubeconfig } from '../../../action/guest-kubeconfig.js';
import { writePrivateFile } from '../../../action/private-file.js';
import { ownSubject } from '../../../action/own-identity.js';
import type { WaitOutcome } from '../../../action/wait-for-lease.js';
import { waitForLease } from '../../../action/wait-for-lease.js';
import { formatSeconds, leaseState, WaitProgress } from '../../../action/wait-progress.js';
import type { ClusterLease } from '../../api/resources.js';
import { LEASES } from '../../api/resources.js';
import { isAlreadyExists, isInvalid } from '../../kube/api-error.js';
import { badInput, CommandExit, EXIT } from './exit-codes.js';
import type { OutputFormat } from './lease-flags.js';
import { durationFlag, leaseNameFlag, outputFormat, ttlFlag } from './lease-flags.js';
import { leaseSummary } from './lease-summary.js';
import type { Management, ManagementFlags } from './management-access.js';
import { managementAccess } from './management-access.js';
import { releaseCreated } from './release-created.js';
import { requestedBy } from './requested-by.js';
import { say, tell } from './terminal.js';

export interface AcquireFlags extends ManagementFlags {
  pool: string;
  ttl: string;
  timeout: string;
  name?: string;
  kubeconfigOut?: string;
  requestedBy?: string;
  output?: string;
}

const HEARTBEAT_MS = 30_000;
/** As the Action: a pool still missing after this long fails the lease (PoolNotFound). */
const POOL_MISSING_GRACE_MS = 15_000;

interface Acquisition {
  management: Management;
  lease: ClusterLease;
  timeoutMs: number;
  kubeconfigOut: string;
  output: OutputFormat;
}

/**
 * `guestcluster lease acquire`: creates a lease, waits with the Action's progress lines (on
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
    });
    const acquisition = { management, lease, timeoutMs, kubeconfigOut, output };
    const startedAt = Date.now();
    const outcome = await waitWithProgress(acquisition, cancel.signal, startedAt);
    if (outcome.kind !== 'bound') return await giveUp(acquisition, outcome);
    await handOver({ ...acquisition, lease: outcome.lease }, (Date.now() - startedAt) / 1000);
  } finally {
    cancel.dispose();
    await management.api.close();
  }
}

async function createLease(
  management: Management,
  request: { name: string; pool: string; ttl: string; requestedBy: string },
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
  tell(
    `Created ${where} on ${management.server} (pool ${request.pool}, ttl ${request.ttl === '0' ? 'none' : request.ttl})`,
  );
  if ('unknown' in own)
    tell(
      `Could not tell who you are on the management cluster (${own.unknown}); reading the kubeconfig needs "get secrets" in ${namespace}`,
    );
  return lease;
}

async function waitWithProgress(
  acquisition: Acquisition,
  cancelled: AbortSignal,
  startedAt: number,
): Promise<WaitOutcome> {
  const { api } = acquisition.management;
  const progress = new WaitProgress(api, tell, startedAt);
  await progress.update(acquisition.lease);
  const timer = setInterval(() => void progress.heartbeat(Date.now()), HEARTBEAT_MS);
  try {
    return await waitForLease(api, acquisition.lease, {
      timeoutMs: acquisition.timeoutMs,
      poolMissingGraceMs: POOL_MISSING_GRACE_MS,
      signal: cancelled,
      onUpdate: (lease) => void progress.update(lease),
      onRetry: (error) => tell(`Watching the lease failed (${(error as Error).message}); retrying`),
    });
  } finally {
    clearInterval(timer);
  }
}

/** Deletes the lease that will not be bound, then exits with the code that says why. */
async function giveUp(
  acquisition: Acquisition,
  outcome: Exclude<WaitOutcome, { kind: 'bound' }>,
): Promise<never> {
  const lease = acquisition.lease;
  const where = `ClusterLease ${lease.metadata!.namespace}/${lease.metadata!.name}`;
  if (outcome.kind === 'deleted')
    throw new CommandExit(
      EXIT.leaseFailed,
      `${where} was deleted by someone else while it waited to be bound`,
    );
  await releaseCreated(acquisition.management.api, lease, outcome.kind === 'cancelled');
  switch (outcome.kind) {
    case 'failed':
      throw new CommandExit(
        EXIT.leaseFailed,
        `${where} failed: ${outcome.reason}: ${outcome.message}`,
      );
    case 'timed-out':
      throw new CommandExit(
        EXIT.timeout,
        `${where} was not bound within ${formatSeconds(Math.round(acquisition.timeoutMs / 1000))} (--timeout); it was ${leaseState(outcome.lease)}`,
      );
    case 'cancelled':
      throw new CommandExit(EXIT.interrupted, `Interrupted while ${where} waited to be bound`);
  }
}

async function handOver(acquisition: Acquisition, waitedSeconds: number): Promise<void> {
  const { lease, kubeconfigOut } = acquisition;
  try {
    await writePrivateFile(
      kubeconfigOut,
      await readGuestKubeconfig(acquisition.management.api, lease),
    );
  } catch (error) {
    // Whoever ran this gets no cluster: do not keep it from the pool.
    await releaseCreated(acquisition.management.api, lease, false);
    throw error;
  }
  const status = lease.status ?? {};
  tell(
    `Bound to ClusterInstance ${status.instanceRef?.name} (${status.topology}, OpenShift ${status.ocpVersion}) after ${formatSeconds(Math.round(waitedSeconds))}`,
  );
  if (acquisition.output === 'json')
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
