import type { ClusterLease } from '../api/resources.js';
import type { ApiClient } from '../kube/api-client.js';
import { kubeconfigCredentials } from '../kube/kubeconfig.js';
import type { Expectations } from './expectations.js';
import { mismatches } from './expectations.js';
import { readGuestKubeconfig } from './guest-kubeconfig.js';
import type { LeaseUi } from './lease-ui.js';
import { errorMessage } from './lease-ui.js';
import { writePrivateFile } from './private-file.js';
import { releaseLease } from './release-lease.js';
import type { WaitOutcome } from './wait-for-lease.js';
import { waitForLease } from './wait-for-lease.js';
import { formatSeconds, leaseState, WaitProgress } from './wait-progress.js';

const HEARTBEAT_MS = 30_000;
/** How long a lease may wait for a pool that does not exist before it fails (README). */
const POOL_MISSING_GRACE_MS = 15_000;
/** A cancelled run is killed a few seconds after its first signal: release without waiting long. */
const CANCEL_RELEASE_WAIT_MS = 5_000;
const RELEASE_WAIT_MS = 60_000;

/** How a front end names its own settings and a cancel in what it says. */
export interface Wording {
  /** The setting of the wait's deadline: 'input "timeout"', '--timeout'. */
  timeout: string;
  /** What a cancel is to whoever started it: 'The run was cancelled', 'Interrupted'. */
  cancelled: string;
}

/** What the cluster must be beyond its pool; a mismatch fails (and releases) unless told to warn. */
export interface Expected extends Expectations {
  onMismatch: 'fail' | 'warn';
  /** The setting that made it fail, for the message: 'input "on-mismatch" is fail'. */
  failSetting: string;
}

/** One lease, created (or adopted) by the front end, on its way to a kubeconfig file. */
export interface Acquisition {
  api: ApiClient;
  ui: LeaseUi;
  lease: ClusterLease;
  timeoutMs: number;
  /** Aborted when the run is cancelled (cancel-signal.ts). */
  cancelled: AbortSignal;
  /** Where the guest kubeconfig goes (mode 0600), and the folder trusted as it is (private-file.ts). */
  kubeconfigPath: string;
  kubeconfigRoot?: string;
  expected?: Expected;
  /**
   * Whether a lease whose kubeconfig cannot be read or written is released here: yes where
   * nothing else would (the CLI); no where a later step does (the Action's post).
   */
  releaseUnreachable: boolean;
  wording: Wording;
  /** What the front end does with the bound cluster, last in the hand-over (outputs, a summary). */
  handedOver?(lease: ClusterLease, waitedSeconds: number): Promise<void>;
}

export type NotBound = Exclude<WaitOutcome, { kind: 'bound' }>;

/** The bound cluster is not what was expected (and on-mismatch is fail): it was released. */
export class MismatchError extends Error {
  override name = 'MismatchError';
}

export type AcquireResult =
  | { kind: 'bound'; lease: ClusterLease; waitedSeconds: number }
  | { kind: NotBound['kind']; message: string };

/**
 * Waits until the lease is bound, telling the ui how it goes, then hands the cluster over: its
 * kubeconfig, masked, in a private file. A lease that will not be bound is released (unless
 * someone else deleted it) and comes back as a failure with its message; how that ends (a failed
 * step, an exit code) is the front end's. Problems of the hand-over are thrown.
 */
export async function acquireLease(acquisition: Acquisition): Promise<AcquireResult> {
  const { ui } = acquisition;
  const startedAt = Date.now();
  const outcome = await ui.group('Wait until it is bound', () =>
    waitWithProgress(acquisition, startedAt),
  );
  if (outcome.kind !== 'bound') return giveUp(acquisition, outcome);
  const waitedSeconds = (Date.now() - startedAt) / 1000;
  await ui.group('Hand the cluster to the job', async () => {
    await handOver(acquisition, outcome.lease);
    await acquisition.handedOver?.(outcome.lease, waitedSeconds);
  });
  return { kind: 'bound', lease: outcome.lease, waitedSeconds };
}

async function waitWithProgress(acquisition: Acquisition, startedAt: number): Promise<WaitOutcome> {
  const { api, ui } = acquisition;
  const progress = new WaitProgress(api, (line) => ui.info(line), startedAt);
  await progress.update(acquisition.lease);
  const timer = setInterval(() => void progress.heartbeat(Date.now()), HEARTBEAT_MS);
  try {
    return await waitForLease(api, acquisition.lease, {
      timeoutMs: acquisition.timeoutMs,
      poolMissingGraceMs: POOL_MISSING_GRACE_MS,
      signal: acquisition.cancelled,
      onUpdate: (lease) => void progress.update(lease),
      onRetry: (error) => ui.info(`Watching the lease failed (${errorMessage(error)}); retrying`),
    });
  } finally {
    clearInterval(timer);
  }
}

const where = (lease: ClusterLease): string =>
  `ClusterLease ${lease.metadata?.namespace}/${lease.metadata?.name}`;

function failureMessage(acquisition: Acquisition, outcome: NotBound): string {
  const lease = where(acquisition.lease);
  switch (outcome.kind) {
    case 'failed':
      return `${lease} failed: ${outcome.reason}: ${outcome.message}`;
    case 'timed-out':
      return `${lease} was not bound within ${formatSeconds(Math.round(acquisition.timeoutMs / 1000))} (${acquisition.wording.timeout}); it was ${leaseState(outcome.lease)}`;
    case 'cancelled':
      return `${acquisition.wording.cancelled} while ${lease} waited to be bound`;
    case 'deleted':
      return `${lease} was deleted by someone else while it waited to be bound`;
  }
}

/** The lease will not be bound: release it now (a job that failed needs no cluster). */
async function giveUp(acquisition: Acquisition, outcome: NotBound): Promise<AcquireResult> {
  const message = failureMessage(acquisition, outcome);
  if (outcome.kind !== 'deleted')
    await releaseNow(
      acquisition,
      outcome.kind === 'cancelled' ? CANCEL_RELEASE_WAIT_MS : RELEASE_WAIT_MS,
    );
  return { kind: outcome.kind, message };
}

/** Deletes the very lease that was created (by UID); a failure is a warning. */
async function releaseNow(acquisition: Acquisition, waitMs: number): Promise<void> {
  const { api, ui, lease } = acquisition;
  const { name, namespace, uid } = lease.metadata ?? {};
  try {
    const result = await releaseLease(
      api,
      { name: name ?? '', namespace: namespace ?? '', uid },
      {
        budgetMs: waitMs,
        onRetry: (error) =>
          ui.info(`Releasing ${where(lease)} failed (${errorMessage(error)}); retrying`),
      },
    );
    ui.info(`Released ${where(lease)} (${result})`);
  } catch (error) {
    ui.warning(`Could not release ${where(lease)}: ${errorMessage(error)}`);
  }
}

/** The kubeconfig, masked, checked against what was expected, and written to its private file. */
async function handOver(acquisition: Acquisition, lease: ClusterLease): Promise<void> {
  const kubeconfig = await releasedIfUnreachable(acquisition, () =>
    readGuestKubeconfig(acquisition.api, lease),
  );
  for (const value of [kubeconfig, ...kubeconfigCredentials(kubeconfig)])
    acquisition.ui.secret(value);
  await checkExpected(acquisition, lease);
  await releasedIfUnreachable(acquisition, () =>
    writePrivateFile(acquisition.kubeconfigPath, kubeconfig, acquisition.kubeconfigRoot).catch(
      (error: unknown) => {
        throw new Error(`Could not write the guest kubeconfig: ${errorMessage(error)}`);
      },
    ),
  );
}

/** Runs `work`; should it fail, a cluster nobody can reach is not kept from the pool. */
async function releasedIfUnreachable<T>(
  acquisition: Acquisition,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (acquisition.releaseUnreachable) await releaseNow(acquisition, RELEASE_WAIT_MS);
    throw error;
  }
}

async function checkExpected(acquisition: Acquisition, lease: ClusterLease): Promise<void> {
  const { expected } = acquisition;
  const problems = expected ? mismatches(expected, lease) : [];
  if (!expected || problems.length === 0) return;
  const message = `The leased cluster does not match: ${problems.join('; ')}`;
  if (expected.onMismatch === 'warn') return acquisition.ui.warning(message);
  await releaseNow(acquisition, RELEASE_WAIT_MS);
  throw new MismatchError(`${message} (${expected.failSetting}; released the lease)`);
}
