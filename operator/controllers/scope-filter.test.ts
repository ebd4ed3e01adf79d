import { describe, expect, it } from '@jest/globals';
import { LEASES, NAMESPACES } from '../../client/api/resources.js';
import type { KubeObject } from '../kube/objects.js';
import { createLogger } from '../runtime/logger.js';
import type { ControllerRegistration, WatchSpec } from '../runtime/manager.js';
import { fakePorts } from '../../test/support/fake-ports.js';
import { scopedTo, servesCachedNamespace } from './scope-filter.js';

const context = { logger: createLogger('error') };
const scope = { labels: { team: 'a' } };
const served = { scope, operatorNamespace: 'operator' };

/** A registration that records the keys it reconciles. */
function recording(): { registration: ControllerRegistration; reconciled: string[] } {
  const reconciled: string[] = [];
  return {
    reconciled,
    registration: {
      name: 'leases',
      forType: LEASES,
      reconcile: (key) => (reconciled.push(key), Promise.resolve({})),
    },
  };
}

function setUp(): ReturnType<typeof fakePorts> {
  const ports = fakePorts();
  ports.api.seed<KubeObject>(NAMESPACES, { metadata: { name: 'ours', labels: { team: 'a' } } });
  ports.api.seed<KubeObject>(NAMESPACES, { metadata: { name: 'theirs', labels: { team: 'b' } } });
  ports.api.seed<KubeObject>(NAMESPACES, { metadata: { name: 'operator' } });
  return ports;
}

describe('scopedTo', () => {
  it('leaves a registration as it is without a scope', () => {
    const { registration } = recording();
    expect(scopedTo(registration, fakePorts(), { operatorNamespace: 'operator' })).toBe(
      registration,
    );
  });

  it("reconciles the keys of namespaces with the scope's labels and of its own namespace only", async () => {
    const ports = setUp();
    const { registration, reconciled } = recording();
    const scoped = scopedTo(registration, ports, served);
    for (const key of ['ours/a', 'theirs/b', 'operator/c', 'missing/d'])
      expect(await scoped.reconcile(key, context)).toEqual({});
    expect(reconciled).toEqual(['ours/a', 'operator/c']);
  });

  it("queues a namespace's objects when its labels bring it into the scope, and only then", () => {
    const ports = setUp();
    ports.api.seed<KubeObject>(LEASES, { metadata: { name: 'l1', namespace: 'theirs' } });
    ports.api.seed<KubeObject>(LEASES, { metadata: { name: 'l2', namespace: 'theirs' } });
    const scoped = scopedTo(recording().registration, ports, served);
    const watch = scoped.watches!.find((w: WatchSpec) => w.type === NAMESPACES)!;
    const theirs = { metadata: { name: 'theirs', labels: { team: 'b' } } };
    const joined = { metadata: { name: 'theirs', labels: { team: 'a' } } };
    expect(watch.mapChange!(theirs, joined).sort()).toEqual(['theirs/l1', 'theirs/l2']);
    expect(watch.mapChange!(joined, joined)).toEqual([]);
    expect(watch.mapChange!(joined, theirs)).toEqual([]);
    expect(watch.mapChange!(joined, undefined)).toEqual([]);
    // Added to the cache (its first list, or a new Namespace): its objects come with their own adds.
    expect(watch.mapChange!(undefined, joined)).toEqual([]);
  });
});

describe('servesCachedNamespace', () => {
  it('says what the reconciles do, from the cache', () => {
    const ports = setUp();
    const serves = (namespace: string): boolean =>
      servesCachedNamespace(ports.cache, served, namespace);
    expect(['ours', 'theirs', 'operator', 'missing'].map(serves)).toEqual([
      true,
      false,
      true,
      false,
    ]);
    expect(servesCachedNamespace(ports.cache, { operatorNamespace: 'x' }, 'theirs')).toBe(true);
  });
});
