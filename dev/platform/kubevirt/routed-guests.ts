import { LABEL_BUILD_ROLE } from '../../../contracts/bundle-build.js';
import type { VmiObject } from '../host/platform-kinds.js';
import type { GuestHost } from './vmi-guests.js';

/**
 * One GuestHost for KubeVirt that boots each VMI on the host meant for it: the VMIs of a bundle
 * build (label guestcluster.opdev.io/bundle-build-role) on the build guests, every other VMI on
 * the CRC guests. A VMI keeps the host it was first given.
 */
export class RoutedGuests implements GuestHost {
  private readonly hosts = new Map<string, GuestHost>();

  constructor(
    private readonly crc: GuestHost,
    private readonly build: GuestHost | undefined,
  ) {}

  private hostOf(vmiUid: string, vmi?: VmiObject): GuestHost {
    const known = this.hosts.get(vmiUid);
    if (known) return known;
    const role = vmi?.metadata?.labels?.[LABEL_BUILD_ROLE];
    const host = role && this.build ? this.build : this.crc;
    if (vmi) this.hosts.set(vmiUid, host);
    return host;
  }

  address(vmiUid: string, vmi?: VmiObject): string {
    return this.hostOf(vmiUid, vmi).address(vmiUid, vmi);
  }

  boot(
    vmi: VmiObject,
    rootDisk: string | undefined,
    volumes?: Record<string, string>,
  ): Promise<void> {
    return this.hostOf(vmi.metadata!.uid!, vmi).boot(vmi, rootDisk, volumes);
  }

  async halt(vmiUid: string): Promise<void> {
    const host = this.hosts.get(vmiUid);
    this.hosts.delete(vmiUid);
    await (host ?? this.crc).halt(vmiUid);
  }
}
