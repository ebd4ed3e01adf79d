import { describe, expect, it } from '@jest/globals';
import type { ClusterPool } from '../../../client/api/resources.js';
import type { Instance, Lease } from './binding-model.js';
import { offerServes, poolOffer, versionUnavailable } from './pool-offer.js';

const meta = (name: string) => ({
  name,
  namespace: 'ci',
  uid: `uid-${name}`,
  resourceVersion: '1',
  creationTimestamp: '2026-01-01T00:00:00Z',
});

const templatePool: ClusterPool = {
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterPool',
  metadata: meta('p'),
  spec: { type: 'hcp', maxSize: 2, template: { ocpVersion: '4.19.7', memory: '8Gi', cores: 2 } },
};
const streamPool = (version?: string): ClusterPool => ({
  ...templatePool,
  spec: {
    ...templatePool.spec,
    template: { versionStreamRef: { name: 's' }, memory: '8Gi', cores: 2 },
  },
  status: version ? { version } : {},
});

const lease = (ocpVersion?: string): Lease => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterLease',
  metadata: meta(`l-${ocpVersion}`),
  spec: { poolRef: { name: 'p' }, ...(ocpVersion ? { ocpVersion } : {}) },
});

const instance = (version: string, extra: Partial<Instance['status']> = {}): Instance => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'ClusterInstance',
  metadata: meta(`i-${version}`),
  spec: {
    type: 'hcp',
    poolRef: { name: 'p' },
    template: { ocpVersion: version, memory: '8Gi', cores: 2 },
  },
  status: { phase: 'Provisioning', ...extra },
});

describe('what a pool offers', () => {
  it("is the template's version, or the followed stream's once the pool has written it", () => {
    expect(poolOffer(templatePool)).toEqual({ version: '4.19.7' });
    expect(poolOffer(streamPool('4.19.8'))).toEqual({ stream: 's', version: '4.19.8' });
    expect(offerServes(poolOffer(streamPool('4.19.8')), lease('4.19'))).toBe(true);
    expect(offerServes(poolOffer(streamPool('4.19.8')), lease('4.19.7'))).toBe(false);
    expect(offerServes(poolOffer(streamPool()), lease('4.19'))).toBeUndefined();
    expect(offerServes(poolOffer(streamPool()), lease())).toBe(true);
  });

  it('makes a lease VersionUnavailable only when neither the offer nor an unclaimed instance serves it', () => {
    expect(versionUnavailable(templatePool, lease('4.19'), [], [])).toBeUndefined();
    expect(versionUnavailable(streamPool(), lease('4.20'), [], [])).toBeUndefined();
    expect(versionUnavailable(templatePool, lease('4.18'), [], [])).toBe(
      'ClusterPool "p" offers OpenShift 4.19.7 (spec.template.ocpVersion) and has no unclaimed instance of 4.18; the lease waits until the pool offers that version',
    );
    // An instance of 4.18 on its way serves it; a claimed or failed one does not.
    expect(
      versionUnavailable(templatePool, lease('4.18'), [instance('4.18.3')], []),
    ).toBeUndefined();
    const claimed = instance('4.18.3', { leaseRef: { name: 'other', uid: 'uid-other' } });
    expect(versionUnavailable(templatePool, lease('4.18'), [claimed], [])).toContain(
      'offers OpenShift 4.19.7',
    );
    const failed = instance('4.18.3', { phase: 'Failed' });
    expect(versionUnavailable(templatePool, lease('4.18'), [failed], [])).toContain(
      'offers OpenShift 4.19.7',
    );
    expect(versionUnavailable(streamPool('4.19.8'), lease('4.19.7'), [], [])).toContain(
      'offers OpenShift 4.19.8 (it follows VersionStream "s")',
    );
  });
});
