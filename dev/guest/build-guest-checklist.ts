import { BUILD_NODE } from '../../contracts/bundle-build.js';
import { DAY_MS, enddate, epoch } from './build-guest-output.js';
import type { CommandOutcome } from './guest-machine.js';
import type { SimulatedBuildGuest } from './simulated-build-guest.js';

/** The seal checklist (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10) from the state model: a step that was skipped leaves its check failing. */
export function sealChecklist(
  guest: SimulatedBuildGuest,
  args: string[],
  stdin: string[],
): CommandOutcome {
  const { state } = guest;
  const marker = stdin[0] ?? '';
  const leaked = [...guest.received]
    .filter(([, content]) => marker && content.includes(marker))
    .map(([file]) => file);
  if (state.kubeletConfig === 'real') leaked.unshift('/var/lib/kubelet/config.json');
  const skew = epoch(guest) - Number(args[0]);
  const nodeIp = state.files['/etc/systemd/system/kubelet.service.d/80-nodeip.conf'] ?? '';
  // With rotation Disabled (args[4]) the short-lived certificates are kept by design.
  const certsOk = args[4] === 'Disabled' || state.certsNotAfter - guest.clockMs() > 25 * DAY_MS;
  const certDetail = `${args[4] === 'Disabled' ? 'rotation-disabled:' : ''}${enddate(state.certsNotAfter)}`;
  const checks: [string, boolean, string][] = [
    ['kubelet-client-cert', certsOk, certDetail],
    ['kubelet-server-cert', certsOk, certDetail],
    ['clock', Math.abs(skew) <= 60, `skew=${skew}s`],
    ['kubelet-pull-secret', state.kubeletConfig === '{}', '/var/lib/kubelet/config.json'],
    [
      'pull-secret-marker',
      !!marker && leaked.length === 0,
      leaked.join(',') || (marker ? 'none' : 'no-marker-on-stdin'),
    ],
    ['kubelet-disabled', !state.kubeletEnabled, state.kubeletEnabled ? 'enabled' : 'disabled'],
    ['nodeip-conf', nodeIp.includes(`KUBELET_NODE_IP=${BUILD_NODE.internalIP}"`), '80-nodeip.conf'],
    [
      'crc-env',
      state.files['/etc/sysconfig/crc-env'] === 'CRC_SELF_SUFFICIENT=0\n',
      '/etc/sysconfig/crc-env',
    ],
    ['crc-units', true, `enabled=0 expected=${args[2] ?? '0'}`],
    ['tap0', state.tap0, 'tap0'],
    [
      'crio-wipe-disabled',
      !!state.files['/etc/systemd/system/crio-wipe.service.d/10-guestcluster-keep-images.conf'],
      'crio-wipe',
    ],
    ['layered-packages', true, 'none-requested'],
    [
      'journal-clean',
      state.journalBoots <= 1 && state.logFiles === 0,
      `boots=${state.journalBoots} logs=${state.logFiles}`,
    ],
    ['cloud-init-clean', true, 'not-layered'],
    ['build-dns-absent', true, args[1] ?? ''],
    ['users-writable', state.transientRo, '/Users'],
    ['opt-kubeconfig', state.kubeconfig, '/opt/kubeconfig'],
    [
      'routes-controller',
      !!state.files['/opt/crc/routes-controller.yaml'],
      '/opt/crc/routes-controller.yaml',
    ],
    ['etcd-peer-url', true, BUILD_NODE.internalIP],
    ['node-internal-ip', true, `crc=${BUILD_NODE.internalIP}`],
    ['pull-secret-api', state.pullSecretApi === '{}', 'openshift-config/pull-secret'],
    ['kubeadmin-removed', !state.kubeadminSecret, 'kube-system/kubeadmin'],
    ['htpass-secret', state.htpasswdUsers.length > 0, 'openshift-config/htpass-secret'],
    ['oauth', state.oauth, 'oauth/cluster'],
    ['cluster-id-empty', state.clusterId === '', `clusterID=${state.clusterId || 'empty'}`],
    ['operators-stable', !guest.faults.neverStable, 'unstable=none'],
    ['etcd-pods', state.etcdPods === 0, `outside-openshift-network=${state.etcdPods}`],
    ['etcd-leases', state.etcdLeases === 0, `leases=${state.etcdLeases}`],
  ];
  const failing = new Set(guest.faults.failingChecks ?? []);
  const lines = checks.map(
    ([name, passed, detail]) =>
      `check ${name} ${passed && !failing.has(name) ? 'pass' : 'fail'} ${detail}\n`,
  );
  return { exitCode: 0, stdout: lines.join('') };
}
