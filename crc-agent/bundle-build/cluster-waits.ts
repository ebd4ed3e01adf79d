import type { BuildGuest } from './build-guest.js';
import type { StepContext } from './step-context.js';

/**
 * snc's wait_till_cluster_stable (snc-library.sh), which snc.sh runs after its customizations and
 * again without the pull secret: stable operators in `polls` polls in a row, each one retry
 * interval apart. `ignore` names namespaces whose pods may be unhealthy (without the pull secret:
 * openshift-marketplace, whose catalogs cannot pull).
 */
export async function waitForStableCluster(
  context: StepContext,
  guest: BuildGuest,
  options: { ignore?: string[]; polls?: number } = {},
): Promise<void> {
  const needed = options.polls ?? 3;
  let inARow = 0;
  let last = '';
  try {
    await guest.poll(
      'three stable polls of the cluster operators in a row',
      context.config.timings.clusterPollTimeoutMs,
      async () => {
        const output = await guest.script('cluster-stable', { args: options.ignore ?? [] });
        if (output.results.get('operators-stable') === 'true') inARow += 1;
        else {
          inARow = 0;
          last = output.results.get('unstable') ?? '';
          throw new Error(`not stable: ${last || 'unknown'}`);
        }
        return inARow >= needed ? true : undefined;
      },
    );
  } catch (error) {
    throw context.fail(
      'ClusterNotStable',
      `the guest cluster did not settle (${(error as Error).message}); look at the named ClusterOperators with oc in the guest (virtctl ssh core@<vm>, KUBECONFIG=/opt/kubeconfig)`,
      error,
    );
  }
}

/**
 * Waits until the master pool is Updated and, when given, renders `includes` (a MachineConfig
 * just applied, as the transient-ro one in P6) or a config other than `renderedBefore` (once P9
 * has emptied the pull secret). snc.sh waits for the pool the same way
 * (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced).
 */
export async function waitForPool(
  context: StepContext,
  guest: BuildGuest,
  want: { includes?: string; renderedBefore?: string } = {},
): Promise<string> {
  try {
    return await guest.poll(
      'the master MachineConfigPool to be Updated',
      context.config.timings.clusterPollTimeoutMs,
      async () => {
        const output = await guest.script('mcp-status', {
          args: want.includes ? [want.includes] : [],
        });
        const rendered = output.results.get('rendered') ?? '';
        if (want.includes && output.results.get('includes') !== 'true')
          throw new Error(`the rendered config ${rendered} does not include ${want.includes} yet`);
        if (want.renderedBefore && rendered === want.renderedBefore)
          throw new Error(`still on the rendered config ${rendered}`);
        if (output.results.get('mcp-updated') !== 'true')
          throw new Error(`pool conditions: ${output.results.get('mcp-conditions') || 'none'}`);
        return rendered;
      },
    );
  } catch (error) {
    throw context.fail(
      'PoolNotUpdated',
      `the master MachineConfigPool did not finish updating (${(error as Error).message}); check oc get mcp,mc in the guest and the machine-config-daemon's log`,
      error,
    );
  }
}
