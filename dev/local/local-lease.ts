import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runMain } from '../../action/run-main.js';
import { addProxyUrl } from './kubeconfig-proxy.js';
import { isProcessAlive, localDir, readLocalState } from './local-state.js';
import { terminalActions } from './terminal-actions.js';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

const shown = (file: string): string => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
};

/**
 * Leases one guest cluster from a pool of the running local environment with the Action's own
 * main step, as a CI job would, and tells how to use and release it.
 */
export async function localLease(options: { pool?: string }): Promise<void> {
  const state = await readLocalState();
  if (!state || !isProcessAlive(state.pid) || !state.demo)
    throw new Error('The local environment is not running. Start it with: npm start');
  const { namespace, pools, proxy } = state.demo;
  const pool = options.pool ?? pools[0]!;
  if (!pools.includes(pool))
    throw new Error(`The local environment has no pool "${pool}"; it has ${pools.join(', ')}`);
  const leaseName = `local-${pool}-${randomBytes(3).toString('hex')}`;
  const kubeconfigPath = path.join(localDir(), `${leaseName}.kubeconfig`);
  // The Action writes a job summary; here it goes next to the kubeconfig.
  const summary = path.join(localDir(), `${leaseName}.summary.md`);
  await writeFile(summary, '');
  // @actions/core finds the summary file through the process environment.
  process.env.GITHUB_STEP_SUMMARY = summary;
  const run = terminalActions(
    {
      'management-kubeconfig': await readFile(state.kubeconfig, 'utf8'),
      namespace,
      pool,
      'lease-name': leaseName,
      'kubeconfig-path': kubeconfigPath,
      'requested-by': `${os.userInfo().username} on ${os.hostname()} (guestcluster local lease)`,
      timeout: '20m',
    },
    say,
  );
  say(`Leasing a cluster from pool ${namespace}/${pool} with the Action's main step`);
  await runMain(run.actions, process.env);
  const failure = run.failure();
  if (failure) throw new Error(failure);

  // Route hosts have no DNS here: the kubeconfig names the router, also an HTTPS proxy, itself.
  await addProxyUrl(kubeconfigPath, proxy);
  const kubectl = path.join(state.binDir, 'kubectl');
  say('');
  say(`Leased ${run.outputs.get('topology')} cluster ${run.outputs.get('instance')}.`);
  say(`  kubeconfig: ${kubeconfigPath} (through the local router at ${proxy})`);
  say(`  ${kubectl} --kubeconfig ${shown(kubeconfigPath)} get nodes`);
  say('Release it:');
  say(
    `  ${kubectl} --kubeconfig ${shown(state.kubeconfig)} -n ${namespace} delete clusterlease ${leaseName}`,
  );
}
