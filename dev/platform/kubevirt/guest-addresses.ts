import { randomInt } from 'node:crypto';

/**
 * The addresses of one environment's simulated guests: one per VMI UID in a random
 * 127.x.y.0/24 block (the VMI's IP and its launcher pod's IP), so that the environments of
 * parallel test files do not meet.
 */
export class GuestAddresses {
  private readonly block = `127.${randomInt(16, 255)}.${randomInt(0, 256)}`;
  private next = 2;
  private readonly addresses = new Map<string, string>();

  /** The VMI's address, the same for every call with its UID until it is freed. */
  of(vmiUid: string): string {
    let address = this.addresses.get(vmiUid);
    if (!address) {
      if (this.next > 254) throw new Error(`no free guest address left in ${this.block}.0/24`);
      address = `${this.block}.${this.next++}`;
      this.addresses.set(vmiUid, address);
    }
    return address;
  }

  free(vmiUid: string): void {
    this.addresses.delete(vmiUid);
  }
}
