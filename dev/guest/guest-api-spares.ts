import { GuestApiServer } from './guest-api.js';

/**
 * A guest API server booted ahead of the first VMI that will run one. A guest control plane takes
 * seconds to come up; a guest booted from the spare answers at once, as a VM's does once it is up.
 * Only the first is booted ahead: a spare kept behind every guest is, in most environments, one
 * booted for nothing at their end, and a boot costs about two seconds of CPU that the test run
 * needs (it is CPU-bound on its two cores). A spare that failed to boot fails the guest that takes
 * it, as a boot of its own would have.
 */
export class GuestApiSpares {
  private spare: Promise<GuestApiServer> | undefined;
  private stopped = false;

  /** Starts booting a spare, unless one is booting or ready already. */
  prepare(): void {
    if (this.stopped || this.spare) return;
    const booting = GuestApiServer.start();
    // Taken, it fails its guest; never taken, nobody waits on it.
    booting.catch(() => undefined);
    this.spare = booting;
  }

  /** A booted guest API: the spare, or one booted now. */
  async take(): Promise<GuestApiServer> {
    if (this.stopped) throw new Error('the spare guest APIs were stopped');
    const next = this.spare ?? GuestApiServer.start();
    this.spare = undefined;
    return next;
  }

  /** Stops the spare once it has booted (or failed to); nothing is booted after this. */
  async stop(): Promise<void> {
    this.stopped = true;
    const spare = this.spare;
    this.spare = undefined;
    await (await spare?.catch(() => undefined))?.stop();
  }
}
