import * as core from '@actions/core';
import type { ClusterLease } from '../operator/api/resources.js';
import { ApiClient } from '../operator/kube/api-client.js';
import { LeaseConflictError, createOrAdoptLease } from './acquire-lease.js';
import type { ActionCore } from './action-core.js';
import { errorMessage } from './action-core.js';
import { cancelSignal } from './cancel-signal.js';
import { clusterAccess } from '../operator/kube/cluster-access.js';
import { mismatches } from './expectations.js';
import type { GitHubRun } from './github-run.js';
import { stepRun } from './github-run.js';
import { readGuestKubeconfig } from './guest-kubeconfig.js';
import { writePrivateFile } from './private-file.js';
import type { Settings } from './inputs.js';
import { readSettings } from './inputs.js';
import { maskKubeconfig, maskManagementInputs } from './masking.js';
import type { LeaseSubject } from './own-identity.js';
import { ownSubject } from './own-identity.js';
import { releaseLease } from './release-lease.js';
import { forgetLease, saveLease } from './state.js';
import { writeSummary } from './summary.js';
import type { WaitOutcome } from './wait-for-lease.js';
import { waitForLease } from './wait-for-lease.js';
import { formatSeconds, leaseState, WaitProgress } from './wait-progress.js';

const HEARTBEAT_MS = 30_000;
/** How long a lease may wait for a pool that does not exist before the step fails (README). */
const POOL_MISSING_GRACE_MS = 15_000;
/** A cancelled run is killed a few seconds after its first signal: release without waiting long. */
const CANCEL_RELEASE_WAIT_MS = 5_000;
const RELEASE_WAIT_MS = 60_000;

interface Step {
  actions: ActionCore;
  settings: Settings;
  api: ApiClient;
  lease: ClusterLease;
}

/** The main step: lease a cluster, wait until it is bound, hand its kubeconfig to the job. */
export async function runMain(actions: ActionCore = core, env = process.env): Promise<void> {
  const cancel = cancelSignal();
  let api: ApiClient | undefined;
  try {
    maskManagementInputs(actions);
    const run = stepRun((name) => actions.getInput(name), env);
    const settings = readSettings((name) => actions.getInput(name), run, env);
    api = new ApiClient(clusterAccess(settings.access));
    const lease = await actions.group('Create the ClusterLease', () =>
      createLease(actions, settings, api!, run),
    );
    const step: Step = { actions, settings, api, lease };
    const startedAt = Date.now();
    const outcome = await actions.group('Wait until it is bound', () =>
      waitWithProgress(step, cancel.signal, startedAt),
    );
    if (outcome.kind !== 'bound') return await giveUp(step, outcome);
    await actions.group('Hand the cluster to the job', () =>
      handOver({ ...step, lease: outcome.lease }, (Date.now() - startedAt) / 1000),
    );
  } catch (error) {
    actions.setFailed(errorMessage(error));
  } finally {
    cancel.dispose();
    await api?.close();
  }
}

async function createLease(
  actions: ActionCore,
  settings: Settings,
  api: ApiClient,
  run: GitHubRun,
): Promise<ClusterLease> {
  const { leaseName: name, namespace, pool } = settings;
  actions.info(
    `Management cluster ${settings.access.server}, namespace ${namespace}, pool ${pool}`,
  );
  const subjects = await leaseSubjects(actions, api);
  const saved = {
    leaseName: name,
    namespace,
    leaseUid: '',
    release: settings.release,
    holdOnFailureMs: settings.holdOnFailureMs,
    kubeconfigPath: settings.kubeconfigPath,
  };
  // Before the create: should its response be lost, post still knows which lease to release.
  saveLease(actions, saved);
  const { lease, adopted } = await createOrAdoptLease(api, {
    name,
    namespace,
    pool,
    ttl: settings.ttl,
    requestedBy: settings.requestedBy,
    run,
    subjects,
    keepAfterJob: !settings.release,
    ocpVersion: settings.expectedOcpVersion,
  }).catch((error: unknown) => {
    if (error instanceof LeaseConflictError) forgetLease(actions);
    throw error;
  });
  saveLease(actions, { ...saved, leaseUid: lease.metadata!.uid! });
  actions.setOutput('lease-name', name);
  actions.info(
    adopted
      ? `Found ClusterLease ${namespace}/${name} from an earlier try of this step; using it`
      : `Created ClusterLease ${namespace}/${name} (ttl ${settings.ttl === '0' ? 'none' : settings.ttl})`,
  );
  return lease;
}

/** The Action's own identity, so that the operator lets it (and only it) read the kubeconfig. */
async function leaseSubjects(actions: ActionCore, api: ApiClient): Promise<LeaseSubject[]> {
  const own = await ownSubject(api);
  if ('subject' in own) {
    const { kind, name, namespace } = own.subject;
    actions.info(`Lease kubeconfig readable by ${kind} ${namespace ? `${namespace}/` : ''}${name}`);
    return [own.subject];
  }
  actions.warning(
    `Could not tell who this Action is on the management cluster (${own.unknown}); the lease gets no spec.subjects, so reading its kubeconfig needs "get secrets" in the namespace`,
  );
  return [];
}

async function waitWithProgress(
  step: Step,
  cancelled: AbortSignal,
  startedAt: number,
): Promise<WaitOutcome> {
  const progress = new WaitProgress(step.api, (line) => step.actions.info(line), startedAt);
  await progress.update(step.lease);
  const beat = (): void => void progress.heartbeat(Date.now());
  const timer = setInterval(beat, HEARTBEAT_MS);
  try {
    return await waitForLease(step.api, step.lease, {
      timeoutMs: step.settings.timeoutMs,
      poolMissingGraceMs: POOL_MISSING_GRACE_MS,
      signal: cancelled,
      onUpdate: (lease) => void progress.update(lease),
      onRetry: (error) =>
        step.actions.info(`Watching the lease failed (${errorMessage(error)}); retrying`),
    });
  } finally {
    clearInterval(timer);
  }
}

function failureMessage(step: Step, outcome: Exclude<WaitOutcome, { kind: 'bound' }>): string {
  const where = `ClusterLease ${step.settings.namespace}/${step.settings.leaseName}`;
  switch (outcome.kind) {
    case 'failed':
      return `${where} failed: ${outcome.reason}: ${outcome.message}`;
    case 'timed-out':
      return `${where} was not bound within ${formatSeconds(Math.round(step.settings.timeoutMs / 1000))} (input "timeout"); it was ${leaseState(outcome.lease)}`;
    case 'cancelled':
      return `The run was cancelled while ${where} waited to be bound`;
    case 'deleted':
      return `${where} was deleted by someone else while it waited to be bound`;
  }
}

/** The lease will not be bound: release it now (a job that failed needs no cluster) and fail. */
async function giveUp(step: Step, outcome: Exclude<WaitOutcome, { kind: 'bound' }>): Promise<void> {
  const message = failureMessage(step, outcome);
  if (outcome.kind !== 'deleted')
    await releaseNow(step, outcome.kind === 'cancelled' ? CANCEL_RELEASE_WAIT_MS : RELEASE_WAIT_MS);
  step.actions.setFailed(message);
}

async function releaseNow(step: Step, waitMs: number): Promise<void> {
  const { leaseName: name, namespace } = step.settings;
  try {
    const result = await releaseLease(
      step.api,
      { name, namespace, uid: step.lease.metadata?.uid },
      {
        budgetMs: waitMs,
        onRetry: (error) =>
          step.actions.info(
            `Releasing ClusterLease ${namespace}/${name} failed (${errorMessage(error)}); retrying`,
          ),
      },
    );
    step.actions.info(`Released ClusterLease ${namespace}/${name} (${result})`);
  } catch (error) {
    step.actions.warning(
      `Could not release ClusterLease ${namespace}/${name}: ${errorMessage(error)}`,
    );
  }
}

async function handOver(step: Step, waitedSeconds: number): Promise<void> {
  const { actions, settings, lease } = step;
  const kubeconfig = await readGuestKubeconfig(step.api, lease);
  maskKubeconfig(actions, kubeconfig);
  const problems = mismatches(settings, lease);
  if (problems.length > 0) {
    const message = `The leased cluster does not match: ${problems.join('; ')}`;
    if (settings.onMismatch === 'fail') {
      await releaseNow(step, RELEASE_WAIT_MS);
      throw new Error(`${message} (input "on-mismatch" is fail; released the lease)`);
    }
    actions.warning(message);
  }
  await writePrivateFile(settings.kubeconfigPath, kubeconfig, settings.kubeconfigRoot).catch(
    (error: unknown) => {
      throw new Error(`Could not write the guest kubeconfig: ${errorMessage(error)}`);
    },
  );
  actions.exportVariable('KUBECONFIG', settings.kubeconfigPath);
  const status = lease.status ?? {};
  const outputs = {
    kubeconfig: settings.kubeconfigPath,
    topology: status.topology ?? '',
    'ocp-version': status.ocpVersion ?? '',
    'api-endpoint': status.apiEndpoint ?? '',
    instance: status.instanceRef?.name ?? '',
    'wait-seconds': String(Math.round(waitedSeconds)),
  };
  for (const [name, value] of Object.entries(outputs)) actions.setOutput(name, value);
  actions.info(
    `Bound to ClusterInstance ${outputs.instance} (${outputs.topology}, OpenShift ${outputs['ocp-version']}) after ${formatSeconds(Math.round(waitedSeconds))}; KUBECONFIG=${settings.kubeconfigPath}`,
  );
  await writeSummary(actions, settings, outputs);
}
