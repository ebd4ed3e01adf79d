import { ApiClient } from '../client/kube/api-client.js';
import type { ActionCore } from './action-core.js';
import { errorMessage } from '../client/lease/lease-ui.js';
import { stepRun } from '../client/lease/github-run.js';
import { holdLease } from '../client/lease/hold-lease.js';
import { holdInstructions } from './hold-summary.js';
import { inputAccess } from './management-access.js';
import { maskManagementInputs } from './masking.js';
import type { SavedLease } from './state.js';

/**
 * Whether post keeps the cluster for debugging: input hold-on-failure is set and the job failed.
 * A post step cannot ask the runner how the job went; input job-status, whose default is the
 * job.status expression, is evaluated again for post and says it (success, failure, cancelled).
 */
export function shouldHold(actions: ActionCore, saved: SavedLease): boolean {
  return saved.release && saved.holdOnFailureMs > 0 && actions.getInput('job-status') === 'failure';
}

/**
 * Holds the failed job's lease (hold-lease.ts) and writes how to reach the cluster to the log and
 * the job summary. True when held; false when there is nothing to hold or the hold failed (both
 * said in the log): post then releases the lease as it would have.
 */
export async function holdOnFailure(
  actions: ActionCore,
  saved: SavedLease,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const where = `ClusterLease ${saved.namespace}/${saved.leaseName}`;
  maskManagementInputs(actions);
  const api = new ApiClient(inputAccess(actions, saved.namespace));
  try {
    const target = {
      name: saved.leaseName,
      namespace: saved.namespace,
      uid: saved.leaseUid || undefined,
      run: stepRun((name) => actions.getInput(name), env),
    };
    const outcome = await holdLease(api, target, saved.holdOnFailureMs);
    if (outcome === 'gone' || outcome === 'not-ours') {
      actions.info(`The job failed, but ${where} is not there to hold any more`);
      return false;
    }
    if (outcome === 'not-bound' || outcome.holdMs <= 0) {
      actions.info(
        outcome === 'not-bound'
          ? `The job failed before ${where} was bound: nothing to hold; releasing it`
          : `The job failed, but ${where} has reached ${outcome.shortenedBy}: releasing it`,
      );
      return false;
    }
    const { heading, who, commands } = holdInstructions(outcome);
    actions.warning(heading);
    actions.info(`${who}\n${commands}`);
    await writeHoldSummary(actions, heading, who, commands);
    return true;
  } catch (error) {
    actions.warning(`Could not hold ${where} (${errorMessage(error)}); releasing it instead`);
    return false;
  } finally {
    await api.close();
  }
}

async function writeHoldSummary(
  actions: ActionCore,
  heading: string,
  who: string,
  commands: string,
): Promise<void> {
  try {
    await actions.summary
      .addHeading('Guest cluster held for debugging', 3)
      .addRaw(heading, true)
      .addBreak()
      .addRaw(who, true)
      .addCodeBlock(commands, 'sh')
      .write();
  } catch (error) {
    actions.warning(`Could not write the job summary: ${errorMessage(error)}`);
  }
}
