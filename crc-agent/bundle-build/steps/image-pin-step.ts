import { waitForPool, waitForStableCluster } from '../cluster-waits.js';
import { requiredResult } from '../script-output.js';
import type { StepRunner } from '../step-context.js';

/**
 * P9 (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10), the end of snc.sh in its
 * order (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): pin
 * baremetal-runtimecfg while the pull secret still works, empty the pull secret and wait for the
 * MCO to render and roll it out, let the cluster settle without it, then prune.
 */
export const runImagePin: StepRunner<'image-pin'> = async (context) => {
  const { log } = context;
  const guest = await context.guest();
  const resolved = await context.resolved();
  await guest.script('image-pin', { args: [resolved.baremetalRuntimecfgImage] });
  const removed = await guest.script('pull-secret-remove');
  const before = requiredResult(removed, 'pull-secret-remove', 'rendered-before');
  if (removed.results.get('pull-secret') !== 'empty')
    throw context.fail(
      'PullSecretNotRemoved',
      'openshift-config/pull-secret still holds credentials after the update; check that the guest oc may update Secrets in openshift-config',
    );
  await waitForPool(context, guest, { renderedBefore: before });
  log.info('Pull secret removed and rolled out');
  await waitForStableCluster(context, guest, { ignore: ['openshift-marketplace'] });
  await guest.script('image-prune');
  await waitForPool(context, guest);
  return {};
};
