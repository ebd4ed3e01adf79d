import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ClusterLease } from '../../client/api/resources.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { clusterAccess } from '../../client/kube/cluster-access.js';
import { parseKubeconfig } from '../../client/kube/kubeconfig.js';
import { acquireLease } from '../../client/lease/acquire.js';
import { cancelSignal } from '../../client/lease/cancel-signal.js';
import { createOrAdoptLease } from '../../client/lease/create-lease.js';
import { gitHubRun } from '../../client/lease/github-run.js';
import type { LeaseUi } from '../../client/lease/lease-ui.js';
import { ownSubject } from '../../client/lease/own-identity.js';
import { formatSeconds } from '../../client/lease/wait-progress.js';
import { addProxyUrl } from './kubeconfig-proxy.js';
import { isProcessAlive, localDir, readLocalState } from './local-state.js';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

const shown = (file: string): string => {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
};

/** The lease client's progress in the terminal, each part under its title, as the Action logs it. */
const terminalUi: LeaseUi = {
  info: (line) => say(`  ${line}`),
  warning: (line) => say(`  warning: ${line}`),
  group: (title, work) => {
    say(`${title}:`);
    return work();
  },
  // Nothing secret is printed: the kubeconfig goes to its file only.
  secret: () => undefined,
};

const TIMEOUT_MS = 20 * 60_000;

/**
 * Leases one guest cluster from a pool of the running local environment with the lease client
 * the Action and the CLI use, and tells how to use and release it.
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
  const context = parseKubeconfig(await readFile(state.kubeconfig, 'utf8'));
  const api = new ApiClient(clusterAccess(context));
  const cancel = cancelSignal();
  let bound: ClusterLease;
  try {
    say(`Leasing a cluster from pool ${namespace}/${pool} with the lease client`);
    const lease = await terminalUi.group('Create the ClusterLease', async () => {
      terminalUi.info(`Management cluster ${context.server}, namespace ${namespace}, pool ${pool}`);
      const own = await ownSubject(api);
      const { lease } = await createOrAdoptLease(api, {
        name: leaseName,
        namespace,
        pool,
        ttl: '6h',
        requestedBy: `${os.userInfo().username} on ${os.hostname()} (guestcluster local lease)`,
        run: gitHubRun({}),
        subjects: 'subject' in own ? [own.subject] : [],
      });
      terminalUi.info(`Created ClusterLease ${namespace}/${leaseName} (ttl 6h)`);
      return lease;
    });
    const result = await acquireLease({
      api,
      ui: terminalUi,
      lease,
      timeoutMs: TIMEOUT_MS,
      cancelled: cancel.signal,
      kubeconfigPath,
      // No post step follows here: a cluster nobody can reach goes back to the pool.
      releaseUnreachable: true,
      wording: { timeout: "the local lease's deadline", cancelled: 'Interrupted' },
      handedOver: (lease, waitedSeconds) => {
        const status = lease.status ?? {};
        terminalUi.info(
          `Bound to ClusterInstance ${status.instanceRef?.name} (${status.topology}, OpenShift ${status.ocpVersion}) after ${formatSeconds(Math.round(waitedSeconds))}`,
        );
        return Promise.resolve();
      },
    });
    if (result.kind !== 'bound') throw new Error(result.message);
    bound = result.lease;
  } finally {
    cancel.dispose();
    await api.close();
  }
  // Route hosts have no DNS here: the kubeconfig names the router, also an HTTPS proxy, itself.
  await addProxyUrl(kubeconfigPath, proxy);
  const kubectl = path.join(state.binDir, 'kubectl');
  say('');
  say(`Leased ${bound.status?.topology} cluster ${bound.status?.instanceRef?.name}.`);
  say(`  kubeconfig: ${kubeconfigPath} (through the local router at ${proxy})`);
  say(`  ${kubectl} --kubeconfig ${shown(kubeconfigPath)} get nodes`);
  say('Release it:');
  say(
    `  ${kubectl} --kubeconfig ${shown(state.kubeconfig)} -n ${namespace} delete clusterlease ${leaseName}`,
  );
}
