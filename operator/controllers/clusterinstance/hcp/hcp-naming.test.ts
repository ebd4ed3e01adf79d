import { describe, expect, it } from '@jest/globals';
import { instanceHash, isDns1123Label } from '../core/naming.js';
import {
  controlPlaneNamespace,
  hostedClusterName,
  MAX_INSTANCE_NAMESPACE,
  nodePoolName,
} from './hcp-naming.js';

const ns43 = `t${'e'.repeat(41)}n`;
const ns44 = `t${'e'.repeat(42)}n`;
const long = `${'very-long-name-'.repeat(3)}and-more-pool-0`; // 60 characters

describe('hcp naming', () => {
  it('fits namespaces of up to 43 characters', () => {
    expect(MAX_INSTANCE_NAMESPACE).toBe(43);
    expect(ns43).toHaveLength(43);
  });

  it.each([
    // namespace, instance, HostedCluster
    ['tenant', 'a-b', `gc-a-b-${instanceHash('tenant', 'a-b')}`],
    ['tenant-a', 'b', `gc-b-${instanceHash('tenant-a', 'b')}`],
    ['ci', 'pool-0', `gc-pool-0-${instanceHash('ci', 'pool-0')}`],
    ['ci', 'a--b', `gc-a-b-${instanceHash('ci', 'a--b')}`],
    ['ci', 'a.b.c', `gc-a-b-c-${instanceHash('ci', 'a.b.c')}`],
    ['ci', 'a.-b', `gc-a-b-${instanceHash('ci', 'a.-b')}`],
    ['ci', long, `gc-very-long-name-very-${instanceHash('ci', long)}`],
    [ns43, 'pool-0', `gc-${instanceHash(ns43, 'pool-0')}`],
    [`${'n'.repeat(37)}`, 'pool-0', `gc-pool-${instanceHash('n'.repeat(37), 'pool-0')}`],
  ])('%s/%s → HostedCluster %s', (namespace, name, expected) => {
    const hc = hostedClusterName(namespace, name);
    expect(hc).toBe(expected);
    const cp = controlPlaneNamespace(namespace, hc);
    expect(isDns1123Label(cp)).toBe(true);
    expect(cp.length).toBeLessThanOrEqual(63);
    expect(hc.length).toBeLessThanOrEqual(40);
    expect(isDns1123Label(nodePoolName(hc))).toBe(true);
  });

  it('keeps tenant/a-b and tenant-a/b apart, where HostedClusters named after the instance meet', () => {
    expect(controlPlaneNamespace('tenant', 'a-b')).toBe(controlPlaneNamespace('tenant-a', 'b'));
    expect(controlPlaneNamespace('tenant', hostedClusterName('tenant', 'a-b'))).not.toBe(
      controlPlaneNamespace('tenant-a', hostedClusterName('tenant-a', 'b')),
    );
  });

  it('keeps names apart that differ only in hyphens and dots', () => {
    const names = ['a-b', 'a--b', 'a.b', 'a.-b'].map((n) => hostedClusterName('ci', n));
    expect(new Set(names).size).toBe(4);
  });

  it('refuses namespaces longer than 43 characters, naming the limit', () => {
    expect(() => hostedClusterName(ns44, 'pool-0')).toThrow(
      `namespace "${ns44}" has 44 characters; hcp instances need a namespace of at most 43`,
    );
  });
});
