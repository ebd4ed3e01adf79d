import type { ClusterAccess } from '../../../client/kube/api-client.js';
import type { VmiObject } from '../host/platform-kinds.js';
import { claimVolumes, dataVolumeNames } from './kubevirt-volumes.js';

/** Where the simulated VMs' guests run: one per VMI, at an address of its own. */
export interface GuestHost {
  /**
   * The VMI's address (its launcher pod's IP), the same for every call with its UID; the VMI is
   * passed on the first call (a host of several kinds of guest picks one by it).
   */
  address(vmiUid: string, vmi?: VmiObject): string;
  /**
   * Boots the VMI's guest from its root disk folder (undefined: no disk); resolves once it is up.
   * `volumes` holds the folder of every PVC-backed volume by volume name (a cdrom's, for example).
   */
  boot(
    vmi: VmiObject,
    rootDisk: string | undefined,
    volumes?: Record<string, string>,
  ): Promise<void>;
  /** Stops the guest of a VMI that is gone (no-op when it has none) and frees its address. */
  halt(vmiUid: string): Promise<void>;
}

export interface SimulatedKubeVirtOptions {
  kubeConfig: ClusterAccess;
  /** VMs in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  guests: GuestHost;
  /** The folder of a Bound claim's volume (the simulated storage of its namespace). */
  volumePath: (namespace: string, claim: string) => string | undefined;
  /** Failure injection: a VMI for which this is false runs, but never reports an IP (no guest). */
  getsIp?: (vmi: VmiObject) => boolean;
}

type GuestState = 'booting' | 'up' | 'failed' | 'off';

/** The guests being booted and running, by VMI key and UID. */
export class GuestBooter {
  private readonly guests = new Map<string, { key: string; state: GuestState }>();

  constructor(
    private readonly options: SimulatedKubeVirtOptions,
    private readonly problems: string[],
    private readonly wake: (key: string) => void,
  ) {}

  state(uid: string): GuestState | undefined {
    return this.guests.get(uid)?.state;
  }

  /** The guest is off: it stops serving at once, and its VMI's pass ends the VMI. */
  poweredOff(uid: string): void {
    const entry = this.guests.get(uid);
    if (!entry || entry.state === 'off') return;
    entry.state = 'off';
    void this.options.guests.halt(uid).catch((error: unknown) => {
      this.problems.push(`halting the powered-off guest of ${entry.key}: ${String(error)}`);
    });
    this.wake(entry.key);
  }

  boot(key: string, vmi: VmiObject): void {
    const uid = vmi.metadata!.uid!;
    if (this.guests.has(uid)) return;
    const entry = { key, state: 'booting' as GuestState };
    this.guests.set(uid, entry);
    const namespace = vmi.metadata!.namespace!;
    const disk = dataVolumeNames(vmi.spec)[0];
    const folder = disk && this.options.volumePath(namespace, disk);
    const volumes: Record<string, string> = {};
    for (const { volume, claim } of claimVolumes(vmi.spec)) {
      const path = this.options.volumePath(namespace, claim);
      if (path) volumes[volume] = path;
    }
    this.options.guests.boot(vmi, folder || undefined, volumes).then(
      () => {
        if (entry.state === 'booting') entry.state = 'up';
        this.wake(key);
      },
      (error: unknown) => {
        entry.state = 'failed';
        this.problems.push(`guest of VMI ${key} (${uid}): ${String(error)}`);
        this.wake(key);
      },
    );
  }

  /** Halts the guests of `key` other than the one of `currentUid`. */
  async haltOthers(key: string, currentUid: string | undefined): Promise<void> {
    for (const [uid, entry] of [...this.guests]) {
      if (entry.key !== key || uid === currentUid) continue;
      this.guests.delete(uid);
      await this.options.guests.halt(uid);
    }
  }

  async haltAll(): Promise<void> {
    for (const uid of [...this.guests.keys()]) {
      this.guests.delete(uid);
      await this.options.guests.halt(uid).catch(() => undefined);
    }
  }
}
