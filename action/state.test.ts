import { describe, expect, it } from '@jest/globals';
import type { StateStore } from './state.js';
import { forgetLease, loadLease, saveLease } from './state.js';

/** The runner's state: strings by name, "" when unset. */
function memoryStore(): StateStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    saveState: (name, value) => void values.set(name, value),
    getState: (name) => values.get(name) ?? '',
  };
}

describe('the state main leaves for post', () => {
  it('round-trips the lease', () => {
    const store = memoryStore();
    const lease = {
      leaseName: 'gh-1-1-abcd',
      namespace: 'ci',
      leaseUid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      release: false,
      holdOnFailureMs: 1_800_000,
      kubeconfigPath: '/tmp/x.kubeconfig',
    };
    saveLease(store, lease);
    expect(loadLease(store)).toEqual(lease);
  });

  it('says there is nothing to release when main saved nothing', () => {
    expect(loadLease(memoryStore())).toBeUndefined();
  });

  it('keeps the name of a lease whose create has not answered yet, without a UID', () => {
    const store = memoryStore();
    saveLease(store, {
      leaseName: 'gh-1-1-abcd',
      namespace: 'ci',
      leaseUid: '',
      release: true,
      holdOnFailureMs: 0,
      kubeconfigPath: '/tmp/x.kubeconfig',
    });
    expect(loadLease(store)).toMatchObject({ leaseName: 'gh-1-1-abcd', leaseUid: '' });
  });

  it('has nothing to release once main found the name taken by another job', () => {
    const store = memoryStore();
    saveLease(store, {
      leaseName: 'taken',
      namespace: 'ci',
      leaseUid: '',
      release: true,
      holdOnFailureMs: 0,
      kubeconfigPath: '/tmp/x.kubeconfig',
    });
    forgetLease(store);
    expect(loadLease(store)).toBeUndefined();
  });

  it('releases unless main said not to', () => {
    const store = memoryStore();
    store.saveState('lease-name', 'l');
    store.saveState('namespace', 'ci');
    expect(loadLease(store)?.release).toBe(true);
  });
});
