import * as core from '@actions/core';
import type { ClusterLease } from '../client/api/resources.js';
import { ApiClient } from '../client/kube/api-client.js';
import { acquireLease } from '../client/lease/acquire.js';
import { cancelSignal } from '../client/lease/cancel-signal.js';
import { LeaseConflictError, createOrAdoptLease } from '../client/lease/create-lease.js';
import type { GitHubRun } from '../client/lease/github-run.js';
import { stepRun } from '../client/lease/github-run.js';
import type { LeaseUi } from '../client/lease/lease-ui.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import type { LeaseSubject } from '../client/lease/own-identity.js';
import { ownSubject } from '../client/lease/own-identity.js';
import { formatSeconds } from '../client/lease/wait-progress.js';
import type { ActionCore } from './action-core.js';
import type { Settings } from './inputs.js';
import { readSettings } from './inputs.js';
import { managementAccess } from './management-access.js';
import { maskManagementInputs } from './masking.js';
import { forgetLease, saveLease } from './state.js';
import { writeSummary } from './summary.js';

/** The lease client reports into the job's log: groups, masked secrets, warnings. */
function actionUi(actions: ActionCore): LeaseUi {
  return {
    info: (line) => actions.info(line),
    warning: (line) => actions.warning(line),
    group: (title, work) => actions.group(title, work),
    secret: (value) => {
      if (value) actions.setSecret(value);
    },
  };
}

/** The main step: lease a cluster, wait until it is bound, hand its kubeconfig to the job. */
export async function runMain(actions: ActionCore = core, env = process.env): Promise<void> {
  const cancel = cancelSignal();
  let api: ApiClient | undefined;
  try {
    maskManagementInputs(actions);
    const run = stepRun((name) => actions.getInput(name), env);
    const settings = readSettings((name) => actions.getInput(name), run, env);
    api = new ApiClient(
      managementAccess(actions, settings.access, settings.auth, settings.namespace),
    );
    const lease = await actions.group('Create the ClusterLease', () =>
      createLease(actions, settings, api!, run),
    );
    const result = await acquireLease({
      api,
      ui: actionUi(actions),
      lease,
      timeoutMs: settings.timeoutMs,
      cancelled: cancel.signal,
      kubeconfigPath: settings.kubeconfigPath,
      kubeconfigRoot: settings.kubeconfigRoot,
      expected: {
        expectedTopology: settings.expectedTopology,
        expectedOcpVersion: settings.expectedOcpVersion,
        onMismatch: settings.onMismatch,
        failSetting: 'input "on-mismatch" is fail',
      },
      // Post releases the lease whatever main did.
      releaseUnreachable: false,
      wording: { timeout: 'input "timeout"', cancelled: 'The run was cancelled' },
      handedOver: (bound, waitedSeconds) => exportCluster(actions, settings, bound, waitedSeconds),
    });
    if (result.kind !== 'bound') actions.setFailed(result.message);
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

/** The bound cluster for the job's later steps: KUBECONFIG, the outputs, the run's summary. */
async function exportCluster(
  actions: ActionCore,
  settings: Settings,
  lease: ClusterLease,
  waitedSeconds: number,
): Promise<void> {
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
