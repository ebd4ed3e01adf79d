import { waitForPool, waitForStableCluster } from '../cluster-waits.js';
import type { StepRunner } from '../step-context.js';
import { readResolved } from '../work-files.js';

/** P6 (spec §4.1.4): cred manager, a new CSR signer, a stable cluster, transient-ro rolled out. */
export const runDay2: StepRunner<'day2'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const resolved = await readResolved(config.paths.work).catch((error: unknown) => {
    throw context.fail(
      'ResolvedMissing',
      `${(error as Error).message}; the resolve step writes it`,
    );
  });
  await guest.script('day2-config', { args: [resolved.cliImage, config.certificateRotation] });
  log.info({ rotation: config.certificateRotation }, 'Day-2 configuration applied');
  await waitForStableCluster(context, guest);
  await waitForPool(context, guest, { includes: '99-enable-transient-ro' });
  return {};
};
