import type { ApiClient } from '../../client/kube/api-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { Clock } from './clock.js';
import { sleep } from './clock.js';
import type { Logger } from './logger.js';
import { metaMicroTime } from '../../client/kube/meta-time.js';

export const LEASES = resourceType('coordination.k8s.io/v1', 'Lease', 'leases');

export interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export interface LeaderElectionOptions {
  client: ApiClient;
  namespace: string;
  name: string;
  identity: string;
  /** How long a lease stays valid without renewal: a standby takes over after it. */
  leaseDurationMs: number;
  /**
   * The leader gives up (and the process stops) when it has not renewed for this long, counted
   * from the start of its last successful renewal; requests still under way then are cut off.
   */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  clock: Clock;
  logger: Logger;
}

type Attempt = 'renewed' | 'held-by-another' | 'failed';

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: the holder renews every
 * retry period; a standby takes the lease once it has seen no renewal for a lease duration (by its
 * own clock, so clock skew between hosts does not matter); every write is a compare-and-swap on
 * the Lease's resourceVersion. Every attempt has a deadline, so an apiserver that stalls or keeps
 * answering 429 cannot hold a leader past its renew deadline: it stops before a standby, which
 * waits a whole lease duration, can take over.
 */
export class LeaderElector {
  private observed: { record: string; at: number } | undefined;
  /** When the attempt that last acquired or renewed the lease began. */
  private renewedAt = 0;

  constructor(private readonly options: LeaderElectionOptions) {}

  /** Resolves once this process holds the lease; resolves false if `signal` aborts first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs, logger, namespace, name } = this.options;
    logger.info({ lease: `${namespace}/${name}` }, 'Waiting to acquire the leader-election lease');
    while (!signal.aborted) {
      const cutoff = this.deadline(clock.now() + this.options.renewDeadlineMs, signal);
      const attempt = await this.tryAcquireOrRenew(cutoff.signal).finally(cutoff.clear);
      if (attempt === 'renewed') {
        logger.info(
          { lease: `${namespace}/${name}`, identity: this.options.identity },
          'Acquired the leader-election lease',
        );
        return true;
      }
      await sleep(clock, retryPeriodMs * (1 + 0.2 * Math.random()), signal);
    }
    return false;
  }

  /**
   * Renews the lease every retry period. Resolves with the reason when leadership is lost: another
   * holder, or no successful renewal within the renew deadline of the last one (a request still
   * under way at the deadline is cut off). Resolves undefined if `signal` aborts.
   */
  async holdUntilLost(signal: AbortSignal): Promise<string | undefined> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.options;
    while (!signal.aborted) {
      await sleep(clock, retryPeriodMs, signal);
      if (signal.aborted) break;
      const cutoff = this.deadline(this.renewedAt + renewDeadlineMs, signal);
      try {
        for (;;) {
          const attempt = await this.tryAcquireOrRenew(cutoff.signal);
          if (attempt === 'renewed') break;
          if (signal.aborted) return undefined;
          if (attempt === 'held-by-another')
            return `the lease is now held by ${this.observedHolder()}`;
          if (cutoff.signal.aborted)
            return `the lease was not renewed within the renew deadline (${renewDeadlineMs} ms)`;
          await sleep(clock, retryPeriodMs, cutoff.signal);
        }
      } finally {
        cutoff.clear();
      }
    }
    return undefined;
  }

  /** A signal that aborts at `at` (by the clock) or with `parent`. */
  private deadline(at: number, parent: AbortSignal): { signal: AbortSignal; clear: () => void } {
    const { clock } = this.options;
    const expired = new AbortController();
    const timer = clock.setTimeout(() => expired.abort(), Math.max(0, at - clock.now()));
    return {
      signal: AbortSignal.any([expired.signal, parent]),
      clear: () => clock.clearTimeout(timer),
    };
  }

  /** Gives the lease up so a standby need not wait for it to expire. */
  async release(): Promise<void> {
    try {
      const lease = await this.options.client.get<LeaseObject>(
        LEASES,
        this.options.name,
        this.options.namespace,
      );
      if (lease.spec?.holderIdentity !== this.options.identity) return;
      const now = metaMicroTime(this.options.clock.now());
      await this.options.client.update(LEASES, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
      });
    } catch (error) {
      this.options.logger.warn({ err: error }, 'Failed to release the leader-election lease');
    }
  }

  private observedHolder(): string | undefined {
    return this.observed
      ? (JSON.parse(this.observed.record) as LeaseObject['spec'])?.holderIdentity
      : undefined;
  }

  private desiredSpec(now: number): NonNullable<LeaseObject['spec']> {
    const { identity, leaseDurationMs } = this.options;
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      renewTime: metaMicroTime(now),
    };
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const { client, namespace, name } = this.options;
    const now = this.options.clock.now();
    let lease: LeaseObject;
    try {
      lease = await client.get<LeaseObject>(LEASES, name, namespace, { signal });
    } catch (error) {
      return isNotFound(error) ? this.tryCreate(now, signal) : this.failed(error);
    }
    this.observe(lease, now);
    const holder = lease.spec?.holderIdentity;
    const expired = this.observed!.at + (lease.spec?.leaseDurationSeconds ?? 0) * 1000 <= now;
    if (holder && holder !== this.options.identity && !expired) return 'held-by-another';
    const renewed = this.takeOrRenew(lease, now);
    try {
      this.observe(await client.update(LEASES, renewed, { signal }), now);
      this.renewedAt = now;
      return 'renewed';
    } catch (error) {
      return isConflict(error) ? 'failed' : this.failed(error);
    }
  }

  /**
   * The lease record with us as holder; a change of holder sets acquireTime and counts a
   * transition, also after the last holder released it (a graceful handover is one, as
   * client-go's leaderelection counts it).
   */
  private takeOrRenew(lease: LeaseObject, now: number): LeaseObject {
    const holder = lease.spec?.holderIdentity;
    const takingOver = holder !== this.options.identity;
    return {
      ...lease,
      spec: {
        ...lease.spec,
        ...this.desiredSpec(now),
        acquireTime: takingOver ? metaMicroTime(now) : lease.spec?.acquireTime,
        leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (takingOver ? 1 : 0),
      },
    };
  }

  private async tryCreate(now: number, signal: AbortSignal): Promise<Attempt> {
    const { client, namespace, name } = this.options;
    try {
      const created = await client.create<LeaseObject>(
        LEASES,
        {
          apiVersion: LEASES.apiVersion,
          kind: LEASES.kind,
          metadata: { name, namespace },
          spec: { ...this.desiredSpec(now), acquireTime: metaMicroTime(now), leaseTransitions: 0 },
        },
        { signal },
      );
      this.observe(created, now);
      this.renewedAt = now;
      return 'renewed';
    } catch (error) {
      return isAlreadyExists(error) ? 'failed' : this.failed(error);
    }
  }

  /** Remembers when the lease record last changed, by our clock. */
  private observe(lease: LeaseObject, now: number): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (this.observed?.record !== record) this.observed = { record, at: now };
  }

  private failed(error: unknown): 'failed' {
    this.options.logger.warn({ err: error }, 'Failed to read or write the leader-election lease');
    return 'failed';
  }
}
