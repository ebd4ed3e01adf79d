import { readFile } from 'node:fs/promises';
import type { BuildStep, BuildStepOutputs } from '../../contracts/bundle-build.js';
import type { Logger } from '../logger.js';
import { checkPrivateKey } from '../ssh-key.js';
import type { BuildConfig } from './build-config.js';
import { BuildFailure, missingTool, stageReason } from './build-failure.js';
import { BuildGuest } from './build-guest.js';
import { readResolved } from './work-files.js';
import type { ResolvedRelease } from './work-files.js';

/** What every step gets: its configuration, a log, cancellation, the clock, and its guest. */
export class StepContext {
  private guestConnection: BuildGuest | undefined;

  constructor(
    readonly config: BuildConfig,
    readonly log: Logger,
    readonly signal: AbortSignal,
    /** Real time in ms (the Job runs on the management cluster's clock). */
    readonly now: () => number = Date.now,
  ) {}

  get step(): BuildStep {
    return this.config.step;
  }

  /**
   * A failure of this step's stage with a reason of its kind (`<Stage><kind>`); one caused by a
   * tool the image lacks is that, whatever the step would have advised (missingTool).
   */
  fail(kind: string, message: string, cause?: unknown): BuildFailure {
    return (
      missingTool(this.step, cause) ??
      new BuildFailure(stageReason(this.step, kind), message, { cause })
    );
  }

  /** The guest named by BUILD_SSH_HOST, logged in with the build key (read once). */
  async guest(): Promise<BuildGuest> {
    if (this.guestConnection) return this.guestConnection;
    const { config } = this;
    let privateKey: string;
    try {
      privateKey = await readFile(config.paths.sshKey, 'utf8');
      checkPrivateKey(privateKey);
    } catch (error) {
      throw this.fail(
        'SSHKeyInvalid',
        `the build SSH key ${config.paths.sshKey} is missing or not a private key (${String(error)}); the operator mounts the build's ssh Secret there`,
        error,
      );
    }
    this.guestConnection = new BuildGuest({
      host: config.sshHost,
      port: config.sshPort,
      user: config.sshUser,
      privateKey,
      timings: config.timings,
      signal: this.signal,
      log: this.log,
    });
    return this.guestConnection;
  }

  /** What the resolve step left on the work volume (image pullspecs). */
  async resolved(): Promise<ResolvedRelease> {
    return readResolved(this.config.paths.work).catch((error: unknown) => {
      throw this.fail(
        'ResolvedMissing',
        `${(error as Error).message}; the resolve step (P0) writes it on the work volume`,
        error,
      );
    });
  }

  close(): void {
    this.guestConnection?.close();
  }
}

export type StepRunner<S extends BuildStep> = (
  context: StepContext,
) => Promise<BuildStepOutputs[S]>;
