import type { HostedClusterObject } from './hosted-cluster-status.js';

/**
 * How long simulated HyperShift takes, per HostedCluster, where the real one takes minutes: a
 * control plane's pods and a NodePool's workers coming up before Available, and the machines and
 * control plane namespace going on deletion (docs/supply-benchmark.md#the-replay). Unset, both
 * are as fast as the API allows, which is what the tests want.
 */
export interface HostedClusterDelays {
  /** From when the platform first sees the HostedCluster until it may report Available. */
  availableAfterMs?: (hostedCluster: HostedClusterObject) => number;
  /** From when the platform first sees it deleting until its finalizer may go. */
  deletedAfterMs?: (hostedCluster: HostedClusterObject) => number;
}

/**
 * Each HostedCluster's drawn delays and when they started, by UID: asked again on every pass,
 * the answer is what is left.
 */
export class HostedClusterDelayClock {
  private readonly deadlines = new Map<string, number>();

  constructor(
    private readonly delays: HostedClusterDelays = {},
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Milliseconds until the HostedCluster may be Available; 0 once it may. */
  untilAvailable(hostedCluster: HostedClusterObject): number {
    return this.left(hostedCluster, 'available', this.delays.availableAfterMs);
  }

  /** Milliseconds until the deleted HostedCluster may go; 0 once it may. */
  untilDeleted(hostedCluster: HostedClusterObject): number {
    return this.left(hostedCluster, 'deleted', this.delays.deletedAfterMs);
  }

  /** The HostedCluster is gone: its deadlines with it. */
  forget(hostedCluster: HostedClusterObject): void {
    const uid = hostedCluster.metadata?.uid ?? '';
    this.deadlines.delete(`${uid}/available`);
    this.deadlines.delete(`${uid}/deleted`);
  }

  private left(
    hostedCluster: HostedClusterObject,
    step: 'available' | 'deleted',
    delay: ((hostedCluster: HostedClusterObject) => number) | undefined,
  ): number {
    if (!delay) return 0;
    const key = `${hostedCluster.metadata?.uid ?? ''}/${step}`;
    let deadline = this.deadlines.get(key);
    if (deadline === undefined) {
      deadline = this.now() + Math.max(0, delay(hostedCluster));
      this.deadlines.set(key, deadline);
    }
    return Math.max(0, Math.ceil(deadline - this.now()));
  }
}
