import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a simulated build guest's disk holds and the guest cluster on it knows, as far as the
 * build's steps change it and the seal checklist looks at it. The target VM's state lives on its
 * root disk (a file beside disk.img), so it survives reboots, a new VMI and the clone; the
 * installer VM's lives in memory only, as its containerDisk does.
 */
export interface BuildGuestState {
  /** Written to /dev/vda by install-to-disk: the installed system boots from then on. */
  installed: boolean;
  /** The core user's keys (from the ignition), and the installed system's host key. */
  authorizedKeys: string;
  hostKey: string;
  /** Looks at install-status during the live phase, and with the bootstrap secrets still there. */
  livePolls: number;
  bootstrapPolls: number;
  bootstrapDone: boolean;
  /** /opt/kubeconfig exists (copied in by P5 InstallWait). */
  kubeconfig: boolean;
  /** MachineConfigs of the pool, its rendered config, and whether a rollout (with reboot) waits. */
  machineConfigs: string[];
  rendered: number;
  rollout: boolean;
  credManager: boolean;
  csrSignerRotated: boolean;
  /** Kubelet certificates' NotAfter (ms, real time) and whether new CSRs wait for approval. */
  certsNotAfter: number;
  pendingCsrs: boolean;
  htpasswdUsers: string[];
  oauth: boolean;
  kubeadminSecret: boolean;
  clusterId: string;
  pinnedImage: string;
  /** The API's pull secret and the kubelet's config.json: "real" (holds it) or "{}". */
  pullSecretApi: 'real' | '{}';
  kubeletConfig: 'real' | '{}';
  pruned: boolean;
  transientRo: boolean;
  kubeletEnabled: boolean;
  files: Record<string, string>;
  units: string[];
  tap0: boolean;
  /** Boots whose journal is kept, and log files under /var/log. */
  journalBoots: number;
  logFiles: number;
  etcdPods: number;
  etcdLeases: number;
  zeroed: boolean;
}

export const STATE_FILE = 'simulated-build-guest.json';

export function freshState(hostKey: string): BuildGuestState {
  return {
    installed: false,
    authorizedKeys: '',
    hostKey,
    livePolls: 0,
    bootstrapPolls: 0,
    bootstrapDone: false,
    kubeconfig: false,
    machineConfigs: [
      '00-master',
      'chronyd-mask',
      '99-master-dummy-networks',
      '99-master-nodeip-hint',
    ],
    rendered: 1,
    rollout: false,
    credManager: false,
    csrSignerRotated: false,
    certsNotAfter: 0,
    pendingCsrs: false,
    htpasswdUsers: [],
    oauth: false,
    kubeadminSecret: true,
    clusterId: 'b3e5a7c0-0000-4000-8000-00000000c1d0',
    pinnedImage: '',
    pullSecretApi: 'real',
    kubeletConfig: 'real',
    pruned: false,
    transientRo: false,
    kubeletEnabled: true,
    files: {},
    units: [],
    tap0: false,
    journalBoots: 1,
    logFiles: 12,
    etcdPods: 140,
    etcdLeases: 30,
    zeroed: false,
  };
}

export async function loadState(folder: string): Promise<BuildGuestState | undefined> {
  const text = await readFile(path.join(folder, STATE_FILE), 'utf8').catch(() => undefined);
  return text ? (JSON.parse(text) as BuildGuestState) : undefined;
}

export async function saveState(folder: string, state: BuildGuestState): Promise<void> {
  await writeFile(path.join(folder, STATE_FILE), JSON.stringify(state));
}
