import { waitForPool, waitForStableCluster } from '../cluster-waits.js';
import type { StepRunner } from '../step-context.js';

/** P6 (docs/bundle-build.md#6-certificate-rotation-in-the-present-p6-p7): cred manager, a new CSR signer, a stable cluster, transient-ro rolled out. */
export const runDay2: StepRunner<'day2'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const resolved = await context.resolved();
  await guest.script('day2-config', { args: [resolved.cliImage, config.certificateRotation] });
  log.info({ rotation: config.certificateRotation }, 'Day-2 configuration applied');
  await waitForStableCluster(context, guest);
  await waitForPool(context, guest, { includes: '99-enable-transient-ro' });
  return {};
};
