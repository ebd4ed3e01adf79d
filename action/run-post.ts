import * as core from '@actions/core';
import { ApiClient } from '../operator/kube/api-client.js';
import type { ActionCore } from './action-core.js';
import { errorMessage } from './action-core.js';
import { clusterAccess } from '../operator/kube/cluster-access.js';
import { removeFile } from './guest-kubeconfig.js';
import { readAccess } from './inputs.js';
import { maskManagementInputs } from './masking.js';
import { releaseLease } from './release-lease.js';
import type { SavedLease } from './state.js';
import { loadLease } from './state.js';

/** How long post waits for the operator to let go of the instance before it moves on. */
const RELEASE_WAIT_MS = 120_000;

const RESULTS = {
  released: 'Released',
  'already-gone': 'Already released',
  replaced: 'Left alone (the name now belongs to another lease):',
  'still-releasing': 'Deleted, still being released by the operator:',
} as const;

/**
 * The post step: release the lease main created and remove the kubeconfig file. A problem here
 * is a warning, never a failure: it must not hide the job's own result.
 */
export async function runPost(actions: ActionCore = core): Promise<void> {
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
  if (!saved.release) {
    actions.info(
      `Kept ClusterLease ${saved.namespace}/${saved.leaseName} (input "release" is false); its TTL or "kubectl -n ${saved.namespace} delete clusterlease ${saved.leaseName}" releases it`,
    );
    return;
  }
  try {
    await release(actions, saved);
  } catch (error) {
    actions.warning(
      `Could not release ClusterLease ${saved.namespace}/${saved.leaseName}: ${errorMessage(error)}; delete it with kubectl, or its TTL will`,
    );
  }
}

async function release(actions: ActionCore, saved: SavedLease): Promise<void> {
  maskManagementInputs(actions);
  const api = new ApiClient(clusterAccess(readAccess((name) => actions.getInput(name))));
  try {
    const result = await releaseLease(
      api,
      { name: saved.leaseName, namespace: saved.namespace, uid: saved.leaseUid || undefined },
      RELEASE_WAIT_MS,
    );
    const line = `${RESULTS[result]} ClusterLease ${saved.namespace}/${saved.leaseName}`;
    if (result === 'still-releasing') actions.warning(line);
    else actions.info(line);
  } finally {
    await api.close();
  }
}
