import { BUILD_NODE } from '../../contracts/bundle-build.js';
import type { GuestScript } from '../../crc-agent/bundle-build/guest-scripts.js';
import { installDirFiles } from './build-guest-ignition.js';
import type { CommandOutcome } from './guest-machine.js';
import type { SimulatedBuildGuest } from './simulated-build-guest.js';

type Handler = (
  guest: SimulatedBuildGuest,
  args: string[],
  stdin: string[],
) => CommandOutcome | Promise<CommandOutcome>;

const DAY_MS = 24 * 3600_000;
/** How long a MachineConfig rollout takes before its reboot. */
const ROLLOUT_MS = 150;
/** The version the simulated build cluster reports. */
export const CLUSTER_VERSION = '4.22.0';
const results = (facts: Record<string, string | number | boolean>): CommandOutcome => ({
  exitCode: 0,
  stdout: Object.entries(facts)
    .map(([key, value]) => `result ${key} ${String(value)}\n`)
    .join(''),
});
const failure = (exitCode: number, stderr: string): CommandOutcome => ({
  exitCode,
  stderr: `${stderr}\n`,
});
const epoch = (guest: SimulatedBuildGuest): number => Math.floor(guest.clockMs() / 1000);
/** openssl's enddate form, spaces as `_`, as the scripts print it. */
const enddate = (ms: number): string =>
  new Date(ms)
    .toUTCString()
    .replace(/^\w+, (\d+) (\w+) (\d+) ([\d:]+) GMT$/, '$2 $1 $4 $3 GMT')
    .replace(/ /g, '_');

/** What the guest's oc can do: the API runs once the installed system has finished bootstrapping. */
function apiUp(guest: SimulatedBuildGuest): boolean {
  return (
    guest.installed &&
    guest.state.bootstrapDone &&
    guest.state.kubeconfig &&
    guest.state.kubeletEnabled
  );
}
const noApi = (): CommandOutcome =>
  failure(1, 'The connection to the server api.crc.testing:6443 was refused');

/** A change to the pool's MachineConfigs: a new rendered config, rolled out with a reboot. */
async function changeMachineConfigs(
  guest: SimulatedBuildGuest,
  change: (mcs: string[]) => string[],
): Promise<void> {
  let changed = false;
  await guest.update((s) => {
    const next = change(s.machineConfigs);
    if (next.join() === s.machineConfigs.join()) return;
    s.machineConfigs = next;
    changed = true;
  });
  if (changed) await startRollout(guest);
}

/** The MCO renders a new config and the machine-config daemon reboots the node into it. */
export async function startRollout(guest: SimulatedBuildGuest): Promise<void> {
  await guest.update((s) => (s.rollout = true));
  setTimeout(() => void guest.reboot().catch(() => undefined), ROLLOUT_MS);
}

async function installStatus(guest: SimulatedBuildGuest): Promise<CommandOutcome> {
  if (!guest.installed) {
    await guest.update((s) => (s.livePolls += 1));
    if (!guest.faults.installNeverCompletes && guest.state.livePolls >= 2) {
      // bootkube is done: install-to-disk writes /dev/vda and reboots (shutdown -r +1).
      await guest.installToDisk();
      setTimeout(() => void guest.reboot().catch(() => undefined), 50);
    }
    return results({
      phase: 'live',
      clock: epoch(guest),
      hostname: 'crc',
      eth10: `${BUILD_NODE.internalIP}/24`,
      nameserver: '10.96.0.10',
      search: 'crc.testing',
      bootkube: 'active',
      'install-to-disk': 'inactive',
      'bootstrap-secrets': 'present',
      kubeconfig: 'absent',
      progress: 'Waiting for the control plane',
    });
  }
  await guest.update((s) => {
    s.bootstrapPolls += 1;
    if (s.bootstrapPolls >= 2) s.bootstrapDone = true;
  });
  return results({
    phase: 'installed',
    clock: epoch(guest),
    hostname: 'crc',
    eth10: `${BUILD_NODE.internalIP}/24`,
    nameserver: '10.96.0.10',
    search: 'crc.testing',
    bootkube: guest.state.bootstrapDone ? 'inactive' : 'active',
    'install-to-disk': 'inactive',
    'bootstrap-secrets': guest.state.bootstrapDone ? 'absent' : 'present',
    kubeconfig: guest.state.kubeconfig ? 'present' : 'absent',
    progress: '',
  });
}

function clusterStable(guest: SimulatedBuildGuest, args: string[]): CommandOutcome {
  if (!apiUp(guest)) return results({ 'operators-stable': false, unstable: 'api-unreachable' });
  const marketplace = guest.state.pullSecretApi === '{}' && !args.includes('openshift-marketplace');
  if (guest.faults.neverStable || guest.state.rollout || marketplace)
    return results({
      'operators-stable': false,
      unstable: marketplace ? 'pods:openshift-marketplace/redhat-operators-x' : 'machine-config',
    });
  return results({ 'operators-stable': true });
}

function mcpStatus(guest: SimulatedBuildGuest, args: string[]): CommandOutcome {
  if (!apiUp(guest)) return noApi();
  const { state } = guest;
  if (state.rollout)
    return results({
      'mcp-updated': false,
      'mcp-conditions': 'Updating',
      rendered: `rendered-master-${state.rendered}`,
    });
  return results({
    'mcp-updated': true,
    'mcp-conditions': 'Updated',
    rendered: `rendered-master-${state.rendered}`,
    ...(args[0] ? { includes: state.machineConfigs.includes(args[0]) } : {}),
  });
}

async function certRotation(guest: SimulatedBuildGuest): Promise<CommandOutcome> {
  const { state } = guest;
  const valid = (): boolean => state.certsNotAfter - guest.clockMs() > 25 * DAY_MS;
  let approved = 0;
  if (!valid() && apiUp(guest) && state.pendingCsrs) {
    approved = 2;
    await guest.update((s) => {
      s.pendingCsrs = false;
      s.certsNotAfter = guest.clockMs() + 30 * DAY_MS;
    });
  } else if (!valid() && state.credManager && state.certsNotAfter < guest.clockMs()) {
    // The kubelet's client certificate expired: it bootstraps again with the cred manager's token.
    await guest.update((s) => (s.pendingCsrs = true));
  }
  const status = valid() ? 'valid' : 'expiring';
  return results({
    'kubelet-client': status,
    'kubelet-server': status,
    approved,
    clock: epoch(guest),
    'kubelet-client-not-after': enddate(state.certsNotAfter),
    'kubelet-server-not-after': enddate(state.certsNotAfter),
  });
}

async function customize(
  guest: SimulatedBuildGuest,
  _args: string[],
  stdin: string[],
): Promise<CommandOutcome> {
  if (!apiUp(guest)) return noApi();
  const htpasswd = Buffer.from(stdin[0] ?? '', 'base64').toString('utf8');
  const users = htpasswd
    .split('\n')
    .filter((line) => /^[^:]+:\$2[aby]\$10\$/.test(line))
    .map((line) => line.split(':')[0]!);
  if (!users.includes('developer') || !users.includes('kubeadmin'))
    return failure(2, 'error htpasswd none arrived on stdin');
  await guest.update((s) => {
    s.credManager = false;
    s.htpasswdUsers = users;
    s.oauth = true;
    s.kubeadminSecret = false;
    s.clusterId = '';
  });
  await changeMachineConfigs(guest, (mcs) => mcs.filter((mc) => mc !== 'chronyd-mask'));
  return results({ customized: true });
}

async function osSeal(guest: SimulatedBuildGuest, args: string[]): Promise<CommandOutcome> {
  await guest.update((s) => {
    s.kubeletEnabled = false;
    s.tap0 = true;
    s.files['/etc/systemd/system/kubelet.service.d/80-nodeip.conf'] =
      `[Service]\nEnvironment="KUBELET_NODE_IP=${args[2] ?? ''}"\n`;
    s.files['/etc/sysconfig/crc-env'] = 'CRC_SELF_SUFFICIENT=0\n';
    s.files['/etc/systemd/system/crio-wipe.service.d/10-guestcluster-keep-images.conf'] =
      '[Service]\nExecStart=\nExecStart=/bin/true\n';
    s.files['/opt/crc/routes-controller.yaml'] = `image: ${args[1] ?? ''}\n`;
  });
  return results({ kubelet: 'disabled', 'crc-units-enabled': 0 });
}

/** §4.6 from the state model: a step that was skipped leaves its check failing. */
function sealChecklist(
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
  const checks: [string, boolean, string][] = [
    [
      'kubelet-client-cert',
      state.certsNotAfter - guest.clockMs() > 25 * DAY_MS,
      enddate(state.certsNotAfter),
    ],
    [
      'kubelet-server-cert',
      state.certsNotAfter - guest.clockMs() > 25 * DAY_MS,
      enddate(state.certsNotAfter),
    ],
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

/** What each guest script does to the simulated guest, and what it prints. */
export const BUILD_SCRIPTS: Record<GuestScript, Handler> = {
  'installer-clock': (guest, args) => {
    guest.setClockOffsetMs = Number(args[0]) * 1000 - guest.now();
    return results({ clock: epoch(guest), ntp: 'no' });
  },
  'installer-ignition': (guest, args, stdin) => {
    const work = args[0] ?? '';
    const input = (name: string): string | undefined =>
      guest.received.get(`${work}/inputs/${name}`)?.toString('utf8');
    if (!stdin[0]) return failure(2, 'error pull-secret none arrived on stdin');
    const config = input('install-config.yaml');
    const additions = input('live-additions.json');
    if (!config || !additions || !input('openshift-install') || !input('cvo-overrides.yaml'))
      return failure(2, 'error input-missing');
    const files = installDirFiles({
      installConfig: config,
      liveAdditions: additions,
      pullSecret: stdin[0],
      clockMs: guest.clockMs(),
    });
    for (const [name, content] of Object.entries(files))
      guest.received.set(`${work}/install/${name}`, Buffer.from(content));
    return results({ ignition: 'bootstrap-in-place-for-live-iso.ign', clock: epoch(guest) });
  },
  'install-status': installStatus,
  'cluster-status': (guest) =>
    apiUp(guest)
      ? results({
          'clusterversion-available': 'True',
          version: CLUSTER_VERSION,
          'console-route': 'present',
          'node-ready': 'True',
          'node-ip': BUILD_NODE.internalIP,
          'etcd-peer': BUILD_NODE.internalIP,
        })
      : results({
          'clusterversion-available': 'Unknown',
          version: '',
          'console-route': 'absent',
          'node-ready': 'Unknown',
          'node-ip': '',
          'etcd-peer': '',
        }),
  'cluster-stable': clusterStable,
  'mcp-status': mcpStatus,
  'day2-config': async (guest, args) => {
    if (!apiUp(guest)) return noApi();
    if (args[1] !== 'Disabled')
      await guest.update((s) => ((s.credManager = true), (s.csrSignerRotated = true)));
    await changeMachineConfigs(guest, (mcs) => [...new Set([...mcs, '99-enable-transient-ro'])]);
    await guest.update((s) => (s.transientRo = true));
    return results({ 'transient-ro': 'applied' });
  },
  'cert-rotation': certRotation,
  customize,
  'image-pin': async (guest, args) => {
    if (guest.state.kubeletConfig !== 'real')
      return failure(125, 'Error: initializing source: unauthorized: authentication required');
    await guest.update((s) => (s.pinnedImage = args[0] ?? ''));
    return results({ pinned: args[0] ?? '' });
  },
  'pull-secret-remove': async (guest) => {
    if (!apiUp(guest)) return noApi();
    const before = `rendered-master-${guest.state.rendered}`;
    await guest.update((s) => (s.pullSecretApi = '{}'));
    await startRollout(guest);
    return results({
      'rendered-before': before,
      'pull-secret': 'empty',
      'kubelet-config': guest.state.kubeletConfig === '{}' ? 'empty' : 'not-empty',
    });
  },
  'image-prune': async (guest) => {
    if (!apiUp(guest)) return noApi();
    if (!guest.state.transientRo)
      return failure(
        1,
        "mkdir: cannot create directory '/Users/.guestcluster-write-check': Read-only file system",
      );
    await guest.update((s) => ((s.pruned = true), (s.pinnedImage = '')));
    return results({ 'users-writable': true, images: 61 });
  },
  'os-seal': osSeal,
  'os-cleanup': async (guest) => {
    await guest.update((s) => ((s.journalBoots = 0), (s.logFiles = 0)));
    return results({ 'journal-files': 0 });
  },
  'etcd-offline': async (guest) => {
    if (guest.state.kubeletEnabled) return failure(1, 'Error: etcd: bind: address already in use');
    await guest.update((s) => ((s.etcdPods = 0), (s.etcdLeases = 0)));
    return results({ 'etcd-pods-outside-network': 0, 'etcd-leases': 0 });
  },
  'cloud-init-seal': () => results({ 'cloud-init': 'absent', 'proxy-env': 'absent' }),
  'seal-checklist': sealChecklist,
  'zero-fill': async (guest) => {
    await guest.update((s) => (s.zeroed = true));
    return results({ 'zeroed-bytes': 1 << 30 });
  },
};
