import type { ApiClient } from '../kube/api-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/api-error.js';
import type { KubeObject } from '../kube/objects.js';
import { resourceType } from '../kube/resource-type.js';
import type { Clock } from './clock.js';
import { sleep } from './clock.js';
import type { Logger } from './logger.js';

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
  /** The leader gives up (and the process stops) if it cannot renew for this long. */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  clock: Clock;
  logger: Logger;
}

/** Lease times are MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go does it: the holder renews every
 * retry period; a standby takes the lease once it has seen no renewal for a lease duration (by its
 * own clock, so clock skew between hosts does not matter); every write is a compare-and-swap on
 * the Lease's resourceVersion.
 */
export class LeaderElector {
  private observed: { record: string; at: number } | undefined;

  constructor(private readonly options: LeaderElectionOptions) {}

  /** Resolves once this process holds the lease; resolves false if `signal` aborts first. */
  async acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs, logger, namespace, name } = this.options;
    logger.info({ lease: `${namespace}/${name}` }, 'Waiting to acquire the leader-election lease');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) {
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
   * Renews the lease every retry period. Resolves with the reason when leadership is lost (another
   * holder, or no successful renewal within the renew deadline); resolves undefined if `signal` aborts.
   */
  async holdUntilLost(signal: AbortSignal): Promise<string | undefined> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.options;
    let lastRenewal = clock.now();
    while (!signal.aborted) {
      await sleep(clock, retryPeriodMs, signal);
      if (signal.aborted) break;
      const renewed = await this.tryAcquireOrRenew();
      if (renewed) lastRenewal = clock.now();
      else if (this.observedHolder() && this.observedHolder() !== this.options.identity) {
        return `the lease is now held by ${this.observedHolder()}`;
      } else if (clock.now() - lastRenewal > renewDeadlineMs) {
        return `the lease could not be renewed for ${renewDeadlineMs} ms`;
      }
    }
    return undefined;
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
      const now = microTime(this.options.clock.now());
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
      renewTime: microTime(now),
    };
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.options;
    const now = this.options.clock.now();
    let lease: LeaseObject;
    try {
      lease = await client.get<LeaseObject>(LEASES, name, namespace);
    } catch (error) {
      return isNotFound(error) ? this.tryCreate(now) : this.failed(error);
    }
    this.observe(lease, now);
    const holder = lease.spec?.holderIdentity;
    const expired = this.observed!.at + (lease.spec?.leaseDurationSeconds ?? 0) * 1000 <= now;
    if (holder && holder !== this.options.identity && !expired) return false;
    const renewed = this.takeOrRenew(lease, now);
    try {
      this.observe(await client.update(LEASES, renewed), now);
      return true;
    } catch (error) {
      return isConflict(error) ? false : this.failed(error);
    }
  }

  /** The lease record with us as holder; a change of holder sets acquireTime and counts a transition. */
  private takeOrRenew(lease: LeaseObject, now: number): LeaseObject {
    const holder = lease.spec?.holderIdentity;
    const takingOver = holder !== this.options.identity;
    return {
      ...lease,
      spec: {
        ...lease.spec,
        ...this.desiredSpec(now),
        acquireTime: takingOver ? microTime(now) : lease.spec?.acquireTime,
        leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + (takingOver && holder ? 1 : 0),
      },
    };
  }

  private async tryCreate(now: number): Promise<boolean> {
    const { client, namespace, name } = this.options;
    try {
      const created = await client.create<LeaseObject>(LEASES, {
        apiVersion: LEASES.apiVersion,
        kind: LEASES.kind,
        metadata: { name, namespace },
        spec: { ...this.desiredSpec(now), acquireTime: microTime(now), leaseTransitions: 0 },
      });
      this.observe(created, now);
      return true;
    } catch (error) {
      return isAlreadyExists(error) ? false : this.failed(error);
    }
  }

  /** Remembers when the lease record last changed, by our clock. */
  private observe(lease: LeaseObject, now: number): void {
    const record = JSON.stringify(lease.spec ?? {});
    if (this.observed?.record !== record) this.observed = { record, at: now };
  }

  private failed(error: unknown): false {
    this.options.logger.warn({ err: error }, 'Failed to read or write the leader-election lease');
    return false;
  }
}
