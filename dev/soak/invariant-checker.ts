/** The invariants of issue #35's soak (docs/soak.md#invariants). */
export const INVARIANTS = [
  'instance-claimed-twice',
  'claimed-instance-deleted',
  'lease-ended-without-reason',
  'kubeconfig-of-another-lease',
  'lease-left-behind',
  'object-left-behind',
  'ttl-not-enforced',
  'operator-resources-grow',
] as const;
export type Invariant = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: Invariant;
  /** When it was seen (epoch milliseconds). */
  atMs: number;
  message: string;
}

/** What the checker keeps of a ClusterLease. */
export interface LeaseView {
  uid: string;
  name: string;
  createdAtMs: number;
  /** status.instanceRef.uid */
  instanceUid?: string;
  phase?: string;
  /** metadata.deletionTimestamp */
  deletingAtMs?: number;
  /** The reason of the Ready condition when it is False (else of Bound False). */
  waitReason?: string;
}

/** What the checker keeps of a ClusterInstance. */
export interface InstanceView {
  uid: string;
  name: string;
  /** status.leaseRef.uid: the claim. */
  leaseUid?: string;
  deletingAtMs?: number;
  kubeconfigSha256?: string;
}

/** What the checker keeps of a lease's kubeconfig Secret: never the kubeconfig, only its hash. */
export interface SecretView {
  uid: string;
  name: string;
  /** The ClusterLease that controls it. */
  leaseUid: string;
  kubeconfigSha256?: string;
}

/** How long a claimed instance's deletion may precede the sight of its lease's deletion. */
export const DELETE_ORDER_GRACE_MS = 60_000;
/** Deletion timestamps have whole seconds: a lease deleted in the instance's second counts as first. */
const TIMESTAMP_RESOLUTION_MS = 1000;
/** A lease younger than this may end before the operator wrote any condition. */
export const REASON_GRACE_MS = 30_000;
const ENDED_PHASES = new Set(['Failed', 'Lost']);

interface Suspicion {
  instance: InstanceView;
  leaseUid: string;
  deletedAtMs: number;
  seenAtMs: number;
}

/**
 * Checks the soak's invariants over the states the watches deliver, in order: pure, with the
 * time passed in, so that a sequence of observed states can be replayed in a unit test.
 */
export class InvariantChecker {
  readonly violations: Violation[] = [];
  private readonly reported = new Set<string>();
  private readonly leases = new Map<string, LeaseView>();
  /** Every instance UID ever bound, and the lease that bound it first. */
  private readonly firstBinding = new Map<string, LeaseView>();
  /** Kubeconfig hash → the lease whose Secret held it first. */
  private readonly kubeconfigOwner = new Map<string, string>();
  private readonly instances = new Map<string, InstanceView>();
  private readonly suspicions = new Map<string, Suspicion>();

  leaseSeen(lease: LeaseView, nowMs: number): void {
    this.leases.set(lease.uid, lease);
    if (lease.deletingAtMs !== undefined) this.leaseDeleting(lease, nowMs);
    if (lease.instanceUid) this.bound(lease, lease.instanceUid, nowMs);
    if (lease.phase && ENDED_PHASES.has(lease.phase) && !lease.waitReason)
      this.violate(
        'lease-ended-without-reason',
        `${lease.name}:${lease.phase}`,
        nowMs,
        `ClusterLease ${lease.name} is ${lease.phase} without a reason in its conditions`,
      );
  }

  leaseGone(lease: LeaseView, nowMs: number): void {
    this.leaseSeen({ ...lease, deletingAtMs: lease.deletingAtMs ?? nowMs }, nowMs);
    this.leases.delete(lease.uid);
    const waited = nowMs - lease.createdAtMs;
    if (!lease.instanceUid && !lease.waitReason && waited >= REASON_GRACE_MS)
      this.violate(
        'lease-ended-without-reason',
        `${lease.name}:unbound`,
        nowMs,
        `ClusterLease ${lease.name} waited ${Math.round(waited / 1000)}s and ended unbound with no reason in its conditions`,
      );
  }

  instanceSeen(instance: InstanceView, nowMs: number): void {
    this.instances.set(instance.uid, instance);
    if (instance.deletingAtMs !== undefined)
      this.instanceDeleting(instance, instance.deletingAtMs, nowMs);
  }

  instanceGone(instance: InstanceView, nowMs: number): void {
    this.instanceDeleting(instance, instance.deletingAtMs ?? nowMs, nowMs);
    this.instances.delete(instance.uid);
  }

  secretSeen(secret: SecretView, nowMs: number): void {
    const hash = secret.kubeconfigSha256;
    if (!hash) return;
    const owner = this.kubeconfigOwner.get(hash);
    if (owner === undefined) this.kubeconfigOwner.set(hash, secret.leaseUid);
    else if (owner !== secret.leaseUid)
      this.violate(
        'kubeconfig-of-another-lease',
        `${secret.uid}:${hash}`,
        nowMs,
        `Secret ${secret.name} holds the kubeconfig another lease's Secret held`,
      );
    const lease = this.leases.get(secret.leaseUid);
    for (const instance of this.instances.values())
      if (
        instance.kubeconfigSha256 === hash &&
        lease?.instanceUid &&
        instance.uid !== lease.instanceUid
      )
        this.violate(
          'kubeconfig-of-another-lease',
          `${secret.uid}:${instance.uid}`,
          nowMs,
          `Secret ${secret.name} holds the kubeconfig of ClusterInstance ${instance.name}, which its lease is not bound to`,
        );
  }

  /** Turns suspicions that outlived their grace into violations. */
  tick(nowMs: number): void {
    for (const [key, suspicion] of this.suspicions)
      if (nowMs - suspicion.seenAtMs >= DELETE_ORDER_GRACE_MS) {
        this.suspicions.delete(key);
        this.claimedDeleted(suspicion, nowMs, 'while its lease lived on');
      }
  }

  /** At the end: every suspicion still open is a violation. */
  finish(nowMs: number): void {
    this.tick(nowMs + DELETE_ORDER_GRACE_MS);
  }

  /** Adds a violation found outside the watches (the end's checks, the resource trend). */
  violate(invariant: Invariant, key: string, atMs: number, message: string): void {
    if (this.reported.has(`${invariant}/${key}`)) return;
    this.reported.add(`${invariant}/${key}`);
    this.violations.push({ invariant, atMs, message });
  }

  private bound(lease: LeaseView, instanceUid: string, nowMs: number): void {
    const first = this.firstBinding.get(instanceUid);
    if (!first) {
      this.firstBinding.set(instanceUid, lease);
      return;
    }
    if (first.uid !== lease.uid)
      this.violate(
        'instance-claimed-twice',
        instanceUid,
        nowMs,
        `ClusterInstance ${instanceUid} was bound by ClusterLease ${first.name} and then by ${lease.name}`,
      );
  }

  private instanceDeleting(instance: InstanceView, deletedAtMs: number, nowMs: number): void {
    const leaseUid = instance.leaseUid ?? this.boundLeaseOf(instance.uid);
    if (!leaseUid || this.suspicions.has(instance.uid)) return;
    const lease = this.leases.get(leaseUid);
    // A lease already gone, or deleting, released its instance first: the release finalizer.
    if (!lease) return;
    const suspicion = { instance, leaseUid, deletedAtMs, seenAtMs: nowMs };
    if (lease.deletingAtMs !== undefined) return this.judge(suspicion, lease.deletingAtMs, nowMs);
    this.suspicions.set(instance.uid, suspicion);
  }

  private leaseDeleting(lease: LeaseView, nowMs: number): void {
    for (const [key, suspicion] of this.suspicions)
      if (suspicion.leaseUid === lease.uid) {
        this.suspicions.delete(key);
        this.judge(suspicion, lease.deletingAtMs!, nowMs);
      }
  }

  private judge(suspicion: Suspicion, leaseDeletingAtMs: number, nowMs: number): void {
    if (leaseDeletingAtMs < suspicion.deletedAtMs + TIMESTAMP_RESOLUTION_MS) return;
    this.claimedDeleted(suspicion, nowMs, 'before its lease was deleted');
  }

  private claimedDeleted(suspicion: Suspicion, nowMs: number, when: string): void {
    const lease = this.leases.get(suspicion.leaseUid);
    this.violate(
      'claimed-instance-deleted',
      suspicion.instance.uid,
      nowMs,
      `ClusterInstance ${suspicion.instance.name}, claimed by ClusterLease ${lease?.name ?? suspicion.leaseUid}, was deleted ${when}`,
    );
  }

  private boundLeaseOf(instanceUid: string): string | undefined {
    for (const lease of this.leases.values())
      if (lease.instanceUid === instanceUid) return lease.uid;
    return undefined;
  }
}
