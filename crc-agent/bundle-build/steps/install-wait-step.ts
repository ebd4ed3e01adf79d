import { readFile } from 'node:fs/promises';
import { BUILD_NODE } from '../../../contracts/bundle-build.js';
import { formatDuration } from '../../durations.js';
import { BuildFailure } from '../build-failure.js';
import { clockProblem, SHIFTED_CLOCK_TOLERANCE_SECONDS } from '../clock-check.js';
import { epochResult } from '../script-output.js';
import type { ScriptOutput } from '../script-output.js';
import type { StepRunner } from '../step-context.js';
import { WORK_FILES, workPath } from '../work-files.js';

export const GUEST_KUBECONFIG = '/opt/kubeconfig';

/**
 * What is wrong with the node's name or address as install-status saw it (docs/bundle-build.md#4-install-to-disk-then-the-reboot-inside-the-same-vmi): the
 * hostname must be crc from the start, and eth10 must carry the node IP once bootkube runs
 * (the bootstrap etcd member is made on it, docs/bundle-build.md#5-the-cluster-is-up-at-the-skewed-time-end-of-p5). Undefined when nothing is wrong yet.
 */
export function nodeIdentityProblem(status: ScriptOutput): string | undefined {
  const hostname = status.results.get('hostname') ?? '';
  if (hostname && hostname !== BUILD_NODE.hostname)
    return `the guest's hostname is ${hostname}, not ${BUILD_NODE.hostname}`;
  const eth10 = status.results.get('eth10') ?? '';
  const running =
    status.results.get('bootkube') === 'active' || status.results.get('phase') === 'installed';
  if (running && !eth10.startsWith(`${BUILD_NODE.internalIP}/`))
    return `eth10 has ${eth10 || 'no address'}, not ${BUILD_NODE.internalIP}/24`;
  return undefined;
}

/**
 * P5 (docs/bundle-build.md#5-the-cluster-is-up-at-the-skewed-time-end-of-p5): follow bootstrap-in-place over SSH, checking on every look
 * that the guest runs on the shifted clock; once the installed system is up and
 * /etc/kubernetes/bootstrap-secrets is gone, copy the admin kubeconfig in and wait, with the
 * guest's own oc, for clusterversion Available and the console route.
 */
export const runInstallWait: StepRunner<'install-wait'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const deadline = context.now() + config.timings.installTimeoutMs;
  const remaining = (): number => Math.max(1, deadline - context.now());
  let lastPhase = '';
  try {
    await guest.poll(
      'bootstrap-in-place to install the node and remove its bootstrap secrets',
      remaining(),
      async () => {
        const status = await guest.script('install-status');
        const phase = status.results.get('phase') ?? '';
        const problem = clockProblem(
          epochResult(status, 'install-status'),
          context.now(),
          config.clockOffsetSeconds,
          SHIFTED_CLOCK_TOLERANCE_SECONDS,
        );
        if (problem)
          throw context.fail(
            'ClockNotShifted',
            `${problem} (${phase} system): the VMI's clock offset was not honoured; check spec.domain.clock on the build VM and that chronyd is masked`,
          );
        if (phase !== lastPhase) {
          lastPhase = phase;
          log.info(
            {
              phase,
              hostname: status.results.get('hostname'),
              eth10: status.results.get('eth10'),
              nameserver: status.results.get('nameserver'),
              search: status.results.get('search'),
              bootkube: status.results.get('bootkube'),
            },
            `The build guest runs its ${phase} system`,
          );
        }
        const identity = nodeIdentityProblem(status);
        if (identity)
          throw context.fail(
            'NodeIdentityWrong',
            `${identity} (${phase} system): the node would be baked with the wrong identity; check the VM's spec.hostname (crc) and the dummy-network unit of the live ignition (guestcluster-dummy-eth10.service)`,
          );
        if (phase === 'live')
          throw new Error(
            `live ISO: bootkube ${status.results.get('bootkube') ?? '?'}, ${status.results.get('progress') ?? ''}`,
          );
        if (status.results.get('bootstrap-secrets') !== 'absent')
          throw new Error('installed system: the bootstrap secrets are still there');
        return true;
      },
    );
  } catch (error) {
    if (error instanceof BuildFailure) throw error;
    throw new BuildFailure(
      'InstallTimedOut',
      `the install did not complete within ${formatDuration(config.timings.installTimeoutMs)} (${(error as Error).message}); collect journalctl -u bootkube -u install-to-disk from the guest (virtctl ssh core@<vm>) before deleting the bundle`,
      { cause: error },
    );
  }

  const kubeconfig = await readFile(
    workPath(config.paths.work, WORK_FILES.adminKubeconfig),
    'utf8',
  ).catch(() => {
    throw context.fail(
      'InstallerOutputMissing',
      `${WORK_FILES.adminKubeconfig} is not on the work volume: the ignition step copies the installer's auth folder there`,
    );
  });
  await guest.writeFile(GUEST_KUBECONFIG, kubeconfig);

  let version: string;
  try {
    version = await guest.poll(
      'clusterversion Available and the console route',
      remaining(),
      async () => {
        const status = await guest.script('cluster-status');
        if (status.results.get('clusterversion-available') !== 'True')
          throw new Error(
            `clusterversion Available=${status.results.get('clusterversion-available') ?? '?'}`,
          );
        if (status.results.get('console-route') !== 'present')
          throw new Error('no console route yet');
        const nodeIp = status.results.get('node-ip');
        if (nodeIp && nodeIp !== BUILD_NODE.internalIP)
          throw context.fail(
            'NodeIPWrong',
            `node crc has InternalIP ${nodeIp}, not ${BUILD_NODE.internalIP}: the node-IP hint (/etc/default/nodeip-configuration) or the dummy eth10 did not apply`,
          );
        return status.results.get('version') || 'unknown';
      },
    );
  } catch (error) {
    if (error instanceof BuildFailure) throw error;
    throw new BuildFailure(
      'InstallTimedOut',
      `the cluster did not become Available (${(error as Error).message}); run oc get clusterversion,co in the guest with KUBECONFIG=/opt/kubeconfig`,
      { cause: error },
    );
  }
  log.info({ version }, 'The build cluster is Available');
  return { clusterVersion: version };
};
