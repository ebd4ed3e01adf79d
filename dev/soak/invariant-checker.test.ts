import { describe, expect, it } from '@jest/globals';
import type { InstanceView, LeaseView } from './invariant-checker.js';
import { DELETE_ORDER_GRACE_MS, InvariantChecker, REASON_GRACE_MS } from './invariant-checker.js';

const lease = (name: string, over: Partial<LeaseView> = {}): LeaseView => ({
  uid: `uid-${name}`,
  name,
  createdAtMs: 0,
  ...over,
});
const instance = (name: string, over: Partial<InstanceView> = {}): InstanceView => ({
  uid: `uid-${name}`,
  name,
  ...over,
});
const kinds = (checker: InvariantChecker): string[] => checker.violations.map((v) => v.invariant);

describe('the soak invariant checker', () => {
  it('passes a lease that binds, is released and whose instance goes after it', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { waitReason: 'WaitingForCapacity' }), 1000);
    checker.instanceSeen(instance('i', { leaseUid: 'uid-a', kubeconfigSha256: 'k1' }), 2000);
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i', phase: 'Bound' }), 2000);
    checker.secretSeen(
      { uid: 's', name: 'a-kubeconfig', leaseUid: 'uid-a', kubeconfigSha256: 'k1' },
      2000,
    );
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i', deletingAtMs: 10_000 }), 10_000);
    checker.instanceGone(instance('i', { leaseUid: 'uid-a', deletingAtMs: 10_000 }), 10_500);
    checker.leaseGone(lease('a', { instanceUid: 'uid-i', deletingAtMs: 10_000 }), 11_000);
    checker.finish(20_000);
    expect(checker.violations).toEqual([]);
  });

  it('finds an instance bound by a second lease, even after the first is gone', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i' }), 1000);
    checker.leaseGone(lease('a', { instanceUid: 'uid-i' }), 2000);
    checker.leaseSeen(lease('b', { instanceUid: 'uid-i' }), 3000);
    expect(kinds(checker)).toEqual(['instance-claimed-twice']);
  });

  it('finds a claimed instance deleted while its lease lives, once the grace is over', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i', phase: 'Bound' }), 1000);
    checker.instanceSeen(instance('i', { leaseUid: 'uid-a', deletingAtMs: 5000 }), 5000);
    checker.tick(5000 + DELETE_ORDER_GRACE_MS - 1);
    expect(checker.violations).toEqual([]);
    checker.tick(5000 + DELETE_ORDER_GRACE_MS);
    expect(kinds(checker)).toEqual(['claimed-instance-deleted']);
  });

  it('finds a claimed instance deleted before the lease that was deleted later', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i', phase: 'Bound' }), 1000);
    checker.instanceGone(instance('i', { deletingAtMs: 5000 }), 5000);
    // The job deletes its lease when it notices, 20 s later: too late.
    checker.leaseSeen(
      lease('a', {
        instanceUid: 'uid-i',
        phase: 'Lost',
        waitReason: 'InstanceLost',
        deletingAtMs: 25_000,
      }),
      25_000,
    );
    expect(kinds(checker)).toEqual(['claimed-instance-deleted']);
  });

  it('takes a lease deletion seen after its instance deletion, but stamped first, as in order', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i' }), 1000);
    checker.instanceGone(instance('i', { leaseUid: 'uid-a', deletingAtMs: 7000 }), 7200);
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i', deletingAtMs: 7000 }), 7300);
    checker.finish(9000);
    expect(checker.violations).toEqual([]);
  });

  it('finds a lease that failed or was lost without a reason, or waited long for none', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('failed', { phase: 'Failed' }), 1000);
    checker.leaseSeen(lease('lost', { phase: 'Lost', waitReason: 'InstanceLost' }), 1000);
    checker.leaseGone(lease('quick'), REASON_GRACE_MS - 1);
    checker.leaseGone(lease('waited'), REASON_GRACE_MS);
    expect(checker.violations.map((v) => v.message)).toEqual([
      'ClusterLease failed is Failed without a reason in its conditions',
      'ClusterLease waited waited 30s and ended unbound with no reason in its conditions',
    ]);
  });

  it("finds a lease Secret holding another lease's kubeconfig or another instance's", () => {
    const checker = new InvariantChecker();
    checker.instanceSeen(instance('i', { kubeconfigSha256: 'k-i' }), 0);
    checker.instanceSeen(instance('j', { kubeconfigSha256: 'k-j' }), 0);
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i' }), 0);
    checker.leaseSeen(lease('b', { instanceUid: 'uid-j' }), 0);
    checker.secretSeen(
      { uid: 's-a', name: 'a-kubeconfig', leaseUid: 'uid-a', kubeconfigSha256: 'k-i' },
      1,
    );
    expect(checker.violations).toEqual([]);
    checker.secretSeen(
      { uid: 's-b', name: 'b-kubeconfig', leaseUid: 'uid-b', kubeconfigSha256: 'k-i' },
      2,
    );
    expect(checker.violations.map((v) => v.message)).toEqual([
      "Secret b-kubeconfig holds the kubeconfig another lease's Secret held",
      'Secret b-kubeconfig holds the kubeconfig of ClusterInstance i, which its lease is not bound to',
    ]);
  });

  it('reports each violation once', () => {
    const checker = new InvariantChecker();
    checker.leaseSeen(lease('a', { instanceUid: 'uid-i' }), 0);
    for (let i = 1; i < 4; i++) checker.leaseSeen(lease('b', { instanceUid: 'uid-i' }), i);
    expect(kinds(checker)).toEqual(['instance-claimed-twice']);
  });
});
