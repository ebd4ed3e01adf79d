import path from 'node:path';
import type { GuestApiServer } from '../../guest/guest-api.js';
import { GuestApiSpares } from '../../guest/guest-api-spares.js';
import type { GuestClusterSeed } from '../../guest/guest-api.js';
import { SimulatedCrcGuest } from '../../guest/simulated-crc-guest.js';
import { createBundlePki } from '../../guest/guest-pki.js';
import type { BundlePki } from '../../guest/guest-pki.js';
import type { VmiObject } from '../host/platform-kinds.js';
import { GuestAddresses } from './guest-addresses.js';
import type { GuestHost } from './vmi-guests.js';
import { DISK_FILE, readAuthorizedKeys, readInstalledMachine } from '../disks/simulated-disk.js';
import {
  bootMismatch,
  describeMachine,
  MASQUERADE_GUEST_IP,
  vmiMachine,
} from '../disks/vmi-machine.js';

/** The guest API's port, as the crc API Service's targetPort names it. */
export const GUEST_API_PORT = 6443;

export type GuestApiMode = 'per-guest' | 'never-ready';

export interface SimulatedCrcGuestsOptions {
  /**
   * `per-guest`: every guest runs a guest API control plane of its own (about 4 s and 400 MB each),
   * so crc-agent can finish it and its kubeconfig works; `never-ready`: the API port answers, only
   * ever with 503 (enough for tests of the platform's mechanics, at a fraction of the cost); or
   * a choice per VMI, for a test file whose instances need a working API only here and there.
   */
  api: GuestApiMode | ((vmi: VmiObject) => GuestApiMode);
  seed?: Partial<GuestClusterSeed>;
}

interface Running {
  address: string;
  /** Why the guest of a built disk did not come up on this VMI (bootMismatch). */
  notUp?: string;
  guest?: SimulatedCrcGuest;
  api?: GuestApiServer;
  halted: boolean;
}

/**
 * What a VMI boots from its root disk folder: core's keys, and for a disk the build installed,
 * whether the VMI is the machine it was installed on (why not, if not).
 */
async function diskOn(
  vmi: VmiObject,
  rootDisk: string | undefined,
): Promise<{
  keys: string | undefined;
  mismatch?: 'firmware' | 'network';
  masquerade?: boolean;
  notUp?: string;
}> {
  const file = rootDisk && path.join(rootDisk, DISK_FILE);
  const keys = file ? await readAuthorizedKeys(file) : undefined;
  const installed = file ? await readInstalledMachine(file) : undefined;
  if (!installed) return { keys };
  const booted = vmiMachine(vmi);
  const mismatch = bootMismatch(installed, booted);
  if (!mismatch) return { keys, masquerade: booted.binding === 'masquerade' };
  const what = mismatch === 'firmware' ? 'no bootable device' : 'cluster never ready';
  const machines = `installed on ${describeMachine(installed)}, the VMI is ${describeMachine(booted)}`;
  return { keys, mismatch, notUp: `${what}: the disk was ${machines}` };
}

/**
 * The CRC guests of the simulated VMs: one SimulatedCrcGuest per VMI at an address of its own in
 * 127.0.0.0/8 (the VMI's IP and its launcher pod's IP), with sshd on a free port there and the guest
 * API at port 6443. The guest's authorized_keys are the ones its root disk carries; a disk without
 * them boots a guest nobody can log in to. A disk the build installed comes up only on the
 * machine it was installed on (bootMismatch): on another firmware nothing answers at all, behind
 * another NIC sshd answers but the guest API never gets ready. Each environment takes a random
 * 127.x.y.0/24 block so that environments of parallel test files do not meet.
 */
export class SimulatedCrcGuests implements GuestHost {
  private readonly addresses = new GuestAddresses();
  private readonly guests = new Map<string, Running>();
  /** The first guest API booted ahead, when every guest gets one (guest-api-spares.ts). */
  private readonly apis = new GuestApiSpares();
  /**
   * The certificates of each bundle, by the authorized_keys its disk carries: `crc` bakes them
   * into the bundle's disk image, so every VM booted from a copy of one golden disk has the same
   * ones until crc-agent replaces what it replaces (and four RSA keys per guest were a good part
   * of the test run's CPU).
   */
  private readonly bundlePkis = new Map<string, BundlePki>();

  constructor(private readonly options: SimulatedCrcGuestsOptions) {
    if (options.api === 'per-guest') this.apis.prepare();
  }

  address(vmiUid: string): string {
    return this.addresses.of(vmiUid);
  }

  async boot(vmi: VmiObject, rootDisk: string | undefined): Promise<void> {
    const uid = vmi.metadata!.uid!;
    const running: Running = { address: this.address(uid), halted: false };
    this.guests.set(uid, running);
    const { keys, mismatch, masquerade, notUp } = await diskOn(vmi, rootDisk);
    running.notUp = notUp;
    // The domain runs, but no OS starts: nothing answers at the VMI's address.
    if (mismatch === 'firmware') return;
    const mode = typeof this.options.api === 'function' ? this.options.api(vmi) : this.options.api;
    running.api = mode === 'per-guest' && !mismatch ? await this.apis.take() : undefined;
    try {
      running.guest = await SimulatedCrcGuest.start({
        pki: this.bundlePkiOf(keys ?? ''),
        api: running.api,
        apiNeverReady: !running.api,
        seed: this.options.seed,
        authorizedPublicKey: keys ?? '',
        address: running.address,
        apiPort: GUEST_API_PORT,
        // An installed disk on its own machine: the NIC masquerade gives every VMI.
        ...(masquerade ? { guestIp: MASQUERADE_GUEST_IP } : {}),
      });
    } catch (error) {
      await running.api?.stop();
      throw error;
    }
    if (running.halted) {
      await this.stopGuest(running);
      throw new Error(`VMI ${uid} was stopped while its guest booted`);
    }
  }

  private bundlePkiOf(authorizedKeys: string): BundlePki {
    let pki = this.bundlePkis.get(authorizedKeys);
    if (!pki) {
      pki = createBundlePki();
      this.bundlePkis.set(authorizedKeys, pki);
    }
    return pki;
  }

  async halt(vmiUid: string): Promise<void> {
    const running = this.guests.get(vmiUid);
    this.guests.delete(vmiUid);
    this.addresses.free(vmiUid);
    if (!running) return;
    running.halted = true;
    await this.stopGuest(running);
  }

  /** The running guest at a VMI address. */
  guestAt(address: string): SimulatedCrcGuest | undefined {
    return [...this.guests.values()].find((g) => g.address === address && !g.halted)?.guest;
  }

  /** Why the guest of a VMI booted from a built disk did not come up (undefined: it did). */
  notUp(vmiUid: string): string | undefined {
    return this.guests.get(vmiUid)?.notUp;
  }

  /** The running guest of a VMI. */
  guestOf(vmiUid: string): SimulatedCrcGuest | undefined {
    return this.guests.get(vmiUid)?.guest;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.guests.keys()].map((uid) => this.halt(uid)));
    await this.apis.stop();
  }

  private async stopGuest(running: Running): Promise<void> {
    const { guest, api } = running;
    running.guest = undefined;
    running.api = undefined;
    await guest?.stop();
    await api?.stop();
  }
}
