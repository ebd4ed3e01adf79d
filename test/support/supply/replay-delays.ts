import type { HostedClusterDelays } from '../../../dev/platform/hypershift/hosted-cluster-delays.js';
import type { InstanceTimes } from './drawn-times.js';

/**
 * The simulated HyperShift's delays for a replay: the drawn provisioning and teardown times,
 * divided by the compression, once armed; none before (the pool's first spares are made before
 * the replay's clock starts) and none after (the clean-up need not wait them out).
 */
export class ReplayDelays {
  private armed = false;

  constructor(
    private readonly times: InstanceTimes,
    private readonly compression: number,
  ) {}

  readonly delays: HostedClusterDelays = {
    availableAfterMs: () => (this.armed ? this.ms(this.times.provisionSeconds()) : 0),
    deletedAfterMs: () => (this.armed ? this.ms(this.times.teardownSeconds()) : 0),
  };

  arm(): void {
    this.armed = true;
  }

  disarm(): void {
    this.armed = false;
  }

  private ms(simulatedSeconds: number): number {
    return (simulatedSeconds * 1000) / this.compression;
  }
}
