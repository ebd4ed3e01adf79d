import { GuestApiServer } from './guest-api.js';

/**
 * Guest API servers booted ahead of the VMIs that will run them. A guest control plane takes
 * seconds to come up, nearly all of it waiting on the apiserver's own start-up rather than using
 * CPU; a guest booted from a spare answers at once, as a VM's does once it is up. One spare is kept,
 * booting or ready: taking it starts the next. A spare that failed to boot fails the guest that
 * takes it, as a boot of its own would have.
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

  /** A booted guest API: the spare, or one booted now; another spare starts booting behind it. */
  async take(): Promise<GuestApiServer> {
    if (this.stopped) throw new Error('the spare guest APIs were stopped');
    const next = this.spare ?? GuestApiServer.start();
    this.spare = undefined;
    this.prepare();
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
