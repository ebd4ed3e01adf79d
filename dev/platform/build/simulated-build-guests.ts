import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { LABEL_BUILD_ROLE } from '../../../contracts/bundle-build.js';
import type { BuildRole } from '../../../contracts/bundle-build.js';
import { ignitionAuthorizedKeys } from '../../guest/build-guest-ignition.js';
import { SimulatedBuildGuest } from '../../guest/simulated-build-guest.js';
import type { BuildGuestFaults } from '../../guest/simulated-build-guest.js';
import type { VmiObject } from '../host/platform-kinds.js';
import { GuestAddresses } from '../kubevirt/guest-addresses.js';
import type { GuestHost } from '../kubevirt/vmi-guests.js';
import { DISK_FILE, readAuthorizedKeys, writeSimulatedDisk } from '../disks/simulated-disk.js';
import { vmiMachine } from '../disks/vmi-machine.js';

/** The parts of a VMI spec a build guest boots from (KubeVirt's VirtualMachineInstanceSpec). */
interface BuildVmiSpec {
  domain?: {
    clock?: { utc?: { offsetSeconds?: number } };
    devices?: { disks?: { name: string; cdrom?: unknown; disk?: unknown }[] };
  };
  volumes?: {
    name: string;
    dataVolume?: { name: string };
    persistentVolumeClaim?: { claimName: string };
    cloudInitNoCloud?: { userData?: string };
  }[];
}

export interface SimulatedBuildGuestsOptions {
  /**
   * The folder of a Bound claim's volume, for a VMI booted without the folders of its volumes
   * (the simulated KubeVirt passes them to boot).
   */
  volumePath?: (namespace: string, claim: string) => string | undefined;
  /**
   * core's keys for a live ISO that carries none of its own (a test that plays the iso step
   * without writing the ISO with writeSimulatedLiveIso): the build's SSH key, for example.
   */
  liveKeys?: (vmi: VmiObject) => Promise<string | undefined>;
  /**
   * cloud-init user data the VMI names through a Secret (userDataSecretRef), read through the
   * API by the caller; inline userData needs none.
   */
  userData?: (vmi: VmiObject) => Promise<string | undefined>;
  /** A guest powered itself off: the VMI ends (Succeeded), as virt-handler reports it. */
  onPoweroff?: (vmi: VmiObject) => void;
  /** Failure injection for the guest of a VMI. */
  faults?: (vmi: VmiObject) => BuildGuestFaults | undefined;
}

/** A simulated live ISO: the ISO's bytes with the record of the keys its ignition gives core. */
export async function writeSimulatedLiveIso(file: string, liveIgnition: string): Promise<void> {
  await writeSimulatedDisk(file, ignitionAuthorizedKeys(liveIgnition));
}

export function buildRole(vmi: VmiObject): BuildRole | undefined {
  const role = vmi.metadata?.labels?.[LABEL_BUILD_ROLE];
  return role === 'target' || role === 'installer' ? role : undefined;
}

/** The claim a volume of the VMI stands on (a DataVolume's claim has its name). */
function claimOf(spec: BuildVmiSpec, volume: string | undefined): string | undefined {
  const found = spec.volumes?.find((v) => v.name === volume);
  return found?.dataVolume?.name ?? found?.persistentVolumeClaim?.claimName;
}

/** core's keys in cloud-config user data (`ssh_authorized_keys`, top level or under users). */
function cloudConfigKeys(userData: string | undefined): string {
  if (!userData) return '';
  const config = (parse(userData) ?? {}) as {
    ssh_authorized_keys?: string[];
    users?: { name?: string; ssh_authorized_keys?: string[] }[];
  };
  const keys = [...(config.ssh_authorized_keys ?? [])];
  for (const user of config.users ?? [])
    if (user.name === 'core') keys.push(...(user.ssh_authorized_keys ?? []));
  return keys.join('\n');
}

interface Running {
  address: string;
  guest?: SimulatedBuildGuest;
  vmi: VmiObject;
}

/**
 * The guests of the bundle build's VMs (label guestcluster.opdev.io/bundle-build-role): one
 * SimulatedBuildGuest per VMI at an address of its own in 127.0.0.0/8, with sshd on a free port.
 * The installer boots its containerDisk with cloud-init's keys for core; the target boots its root
 * disk when it is installed, else the live ISO on its cdrom (the keys of the ISO's ignition), and
 * does not boot with neither.
 */
export class SimulatedBuildGuests implements GuestHost {
  private readonly addresses = new GuestAddresses();
  private readonly guests = new Map<string, Running>();

  constructor(private readonly options: SimulatedBuildGuestsOptions) {}

  address(vmiUid: string): string {
    return this.addresses.of(vmiUid);
  }

  async boot(
    vmi: VmiObject,
    rootDisk: string | undefined,
    volumes?: Record<string, string>,
  ): Promise<void> {
    const uid = vmi.metadata!.uid!;
    const role = buildRole(vmi);
    if (!role) throw new Error(`VMI ${uid} is not a build VMI (no ${LABEL_BUILD_ROLE} label)`);
    const running: Running = { address: this.address(uid), vmi };
    this.guests.set(uid, running);
    const { root, bootKeys, offset } = await this.bootInputs(vmi, role, rootDisk, volumes);
    if (root) await mkdir(root, { recursive: true });
    running.guest = await SimulatedBuildGuest.start({
      role,
      vmiUid: uid,
      address: running.address,
      clockOffsetSeconds: offset,
      rootDisk: root,
      bootKeys,
      faults: this.options.faults?.(vmi),
      onPoweroff: () => this.options.onPoweroff?.(vmi),
      // install-to-disk lays the disk out for this VMI's firmware and NIC.
      writeRootDisk: root
        ? (keys) => writeSimulatedDisk(path.join(root, DISK_FILE), keys, vmiMachine(vmi))
        : undefined,
    });
    if (role === 'target' && !running.guest.installed && !bootKeys) {
      await running.guest.stop();
      throw new Error(
        `VMI ${uid}: no bootable device (the root disk is blank and no live ISO is attached)`,
      );
    }
    if (!this.guests.has(uid)) {
      await running.guest.stop();
      throw new Error(`VMI ${uid} was stopped while its guest booted`);
    }
  }

  async halt(vmiUid: string): Promise<void> {
    const running = this.guests.get(vmiUid);
    this.guests.delete(vmiUid);
    this.addresses.free(vmiUid);
    await running?.guest?.stop();
  }

  /** The port of the sshd at a VMI address (a build Job's BUILD_SSH_PORT here). */
  sshPortAt(address: string): number | undefined {
    return this.guestAt(address)?.ssh.port;
  }

  /** The running guest at a VMI address. */
  guestAt(address: string): SimulatedBuildGuest | undefined {
    return [...this.guests.values()].find((g) => g.address === address)?.guest;
  }

  guestOf(vmiUid: string): SimulatedBuildGuest | undefined {
    return this.guests.get(vmiUid)?.guest;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.guests.keys()].map((uid) => this.halt(uid)));
  }

  /** What the VMI boots: its root disk folder, core's keys before install, its clock offset. */
  private async bootInputs(
    vmi: VmiObject,
    role: BuildRole,
    rootDisk: string | undefined,
    volumes: Record<string, string> | undefined,
  ): Promise<{ root: string | undefined; bootKeys: string; offset: number }> {
    const spec = (vmi.spec ?? {}) as BuildVmiSpec;
    const namespace = vmi.metadata!.namespace!;
    const folder = (volume: string | undefined): string | undefined => {
      if (volume && volumes?.[volume]) return volumes[volume];
      const claim = claimOf(spec, volume);
      return claim ? this.options.volumePath?.(namespace, claim) : undefined;
    };
    const disks = spec.domain?.devices?.disks ?? [];
    const offset = spec.domain?.clock?.utc?.offsetSeconds ?? 0;
    if (role === 'installer')
      return { root: undefined, bootKeys: await this.cloudInitKeys(vmi, spec), offset };
    const root = folder(disks.find((d) => d.disk)?.name) ?? rootDisk;
    const bootKeys = await this.liveIsoKeys(vmi, folder(disks.find((d) => d.cdrom)?.name));
    return { root, bootKeys, offset };
  }

  private async cloudInitKeys(vmi: VmiObject, spec: BuildVmiSpec): Promise<string> {
    const inline = spec.volumes?.find((v) => v.cloudInitNoCloud)?.cloudInitNoCloud?.userData;
    return cloudConfigKeys(inline ?? (await this.options.userData?.(vmi)));
  }

  /** The keys of the ISO's ignition, else the fallback's; none without a cdrom. */
  private async liveIsoKeys(vmi: VmiObject, isoFolder: string | undefined): Promise<string> {
    if (!isoFolder) return '';
    const own = await readAuthorizedKeys(path.join(isoFolder, DISK_FILE));
    return own || ((await this.options.liveKeys?.(vmi)) ?? '');
  }
}
