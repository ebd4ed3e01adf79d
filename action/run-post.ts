import * as core from '@actions/core';
import { ApiClient } from '../client/kube/api-client.js';
import type { ActionCore } from './action-core.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import { stepRun } from '../client/lease/github-run.js';
import { removeFile } from '../client/lease/private-file.js';
import { inputAccess } from './management-access.js';
import { maskManagementInputs } from './masking.js';
import { attachDiagnostics } from './post-diagnostics.js';
import { holdOnFailure, shouldHold } from './post-hold.js';
import { releaseLease } from '../client/lease/release-lease.js';
import { RetriesExhaustedError } from '../client/lease/retry.js';
import type { SavedLease } from './state.js';
import { loadLease } from './state.js';
import { formatSeconds } from '../client/lease/wait-progress.js';

/**
 * How long post keeps trying to release the lease, waiting for the operator to let go of its
 * instance included. GitHub gives the steps that still run in a cancelled job five minutes
 * before it stops the runner; this leaves a minute of them to the job's other post steps.
 */
const POST_RELEASE_BUDGET_MS = 4 * 60_000;

const RESULTS = {
  released: 'Released',
  'already-gone': 'Already released',
  replaced: 'Left alone (the name now belongs to another lease):',
  'still-releasing': 'Deleted, still being released by the operator:',
} as const;

/**
 * The post step: release the lease main created and remove the kubeconfig file; after a failed
 * job, attach the lease's diagnostics first (post-diagnostics.ts), and with hold-on-failure keep
 * the lease for that long instead (post-hold.ts). A problem here
 * is a warning, never a failure: it must not hide the job's own result. Running it twice is
 * harmless: the second run finds the lease gone.
 */
export async function runPost(actions: ActionCore = core, env = process.env): Promise<void> {
  const saved = loadLease(actions);
  if (!saved) {
    actions.info('The main step created no lease; nothing to release.');
    return;
  }
  try {
    await removeFile(saved.kubeconfigPath);
  } catch (error) {
    actions.warning(`Could not remove ${saved.kubeconfigPath}: ${errorMessage(error)}`);
  }
  await attachDiagnostics(actions, saved, env);
  if (!saved.release) {
    actions.info(
      `Kept ClusterLease ${saved.namespace}/${saved.leaseName} (input "release" is false); its TTL or "kubectl -n ${saved.namespace} delete clusterlease ${saved.leaseName}" releases it`,
    );
    return;
  }
  if (shouldHold(actions, saved) && (await holdOnFailure(actions, saved, env))) return;
  const where = `ClusterLease ${saved.namespace}/${saved.leaseName}`;
  try {
    await release(actions, saved, env);
  } catch (error) {
    const gaveUp =
      error instanceof RetriesExhaustedError
        ? `Gave up releasing ${where} after ${error.attempts} attempts in ${formatSeconds(Math.round(error.elapsedMs / 1000))}`
        : `Could not release ${where}`;
    actions.warning(`${gaveUp}: ${errorMessage(error)}; delete it with kubectl, or its TTL will`);
  }
}

async function release(
  actions: ActionCore,
  saved: SavedLease,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  maskManagementInputs(actions);
  const api = new ApiClient(inputAccess(actions, saved.namespace));
  const where = `ClusterLease ${saved.namespace}/${saved.leaseName}`;
  try {
    const result = await releaseLease(
      api,
      {
        name: saved.leaseName,
        namespace: saved.namespace,
        uid: saved.leaseUid || undefined,
        run: stepRun((name) => actions.getInput(name), env),
      },
      {
        budgetMs: POST_RELEASE_BUDGET_MS,
        onRetry: (error, attempt, delayMs) =>
          actions.info(
            `Releasing ${where} failed (${errorMessage(error)}); try ${attempt + 1} in ${formatSeconds(Math.round(delayMs / 1000))}`,
          ),
      },
    );
    const line = `${RESULTS[result]} ClusterLease ${saved.namespace}/${saved.leaseName}`;
    if (result === 'still-releasing') actions.warning(line);
    else actions.info(line);
  } finally {
    await api.close();
  }
}
