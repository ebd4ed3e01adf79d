import { describe, expect, it } from '@jest/globals';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import type { Stored } from '../../../kube/objects.js';
import {
  apiHostname,
  commonLabels,
  endpointLabels,
  instanceHash,
  isDns1123Label,
  isDns1123Subdomain,
  kubeconfigSecretName,
  readablePrefix,
} from './naming.js';

const long = `${'very-long-name-'.repeat(3)}and-more-pool-0`; // 60 characters

const instance = {
  metadata: { namespace: 'ci', name: 'pool-0', uid: 'u', resourceVersion: '1' },
} as Stored<ClusterInstance>;

describe('the names both topologies give an instance', () => {
  it('publishes <instance>-kubeconfig with the common and endpoint labels', () => {
    expect(kubeconfigSecretName('pool-0')).toBe('pool-0-kubeconfig');
    expect(commonLabels(instance)).toEqual({
      'opdev.io/managed-by': 'guestcluster-operator',
      'opdev.io/cluster-instance': 'pool-0',
    });
    expect(endpointLabels(instance)).toEqual({
      'opdev.io/managed-by': 'guestcluster-operator',
      'opdev.io/cluster-instance': 'pool-0',
      'opdev.io/cluster-instance-namespace': 'ci',
    });
  });

  it.each([
    ['a', true, true],
    ['a-b.c', false, true],
    ['-a', false, false],
    ['A', false, false],
    ['x'.repeat(63), true, true],
    ['x'.repeat(64), false, false],
    ['', false, false],
  ])('%s: DNS-1123 label %s, subdomain %s', (value, label, subdomain) => {
    expect(isDns1123Label(value)).toBe(label);
    expect(isDns1123Subdomain(value)).toBe(subdomain);
  });

  it('hashes namespace and name apart (tenant/a-b is not tenant-a/b)', () => {
    expect(instanceHash('tenant', 'a-b')).toMatch(/^[0-9a-f]{16}$/);
    expect(instanceHash('tenant', 'a-b')).not.toBe(instanceHash('tenant-a', 'b'));
  });

  it.each([
    ['Pool_0', 'pool-0'],
    ['--a..b--', 'a-b'],
    ['a.b-c', 'a-b-c'],
    ['...', ''],
  ])('readable prefix of %s is "%s"', (name, prefix) => {
    expect(readablePrefix(name)).toBe(prefix);
  });

  it.each([
    [
      'pool-0',
      'ci',
      'apps.example.com',
      `api-pool-0-${instanceHash('ci', 'pool-0')}.apps.example.com`,
    ],
    ['a.b', 'ci', 'apps.example.com', `api-a-b-${instanceHash('ci', 'a.b')}.apps.example.com`],
    [
      long,
      'ci',
      'apps.example.com',
      `api-${readablePrefix(long).slice(0, 42).replace(/-+$/, '')}-${instanceHash('ci', long)}.apps.example.com`,
    ],
  ])('API host name of %s/%s in %s', (name, namespace, domain, expected) => {
    const host = apiHostname(name, namespace, domain);
    expect(host).toBe(expected);
    expect(host.split('.')[0]!.length).toBeLessThanOrEqual(63);
  });

  it('refuses an ingress domain that leaves no room for the API label', () => {
    const domain = `${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(60)}.${'d'.repeat(52)}`;
    expect(() => apiHostname('pool-0', 'ci', domain)).toThrow(
      'leaves no room for a unique API hostname',
    );
  });

  it.each([
    ['Pool', 'ci', 'apps.example.com', 'instance name "Pool" is not a DNS-1123 subdomain'],
    ['pool-0', 'c.i', 'apps.example.com', 'namespace "c.i" is not a DNS-1123 label'],
    [
      'pool-0',
      'ci',
      'apps..com',
      'management ingress domain "apps..com" is not a DNS-1123 subdomain',
    ],
  ])('refuses %s/%s in %s', (name, namespace, domain, message) => {
    expect(() => apiHostname(name, namespace, domain)).toThrow(message);
  });
});
