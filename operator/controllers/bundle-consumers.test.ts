import { describe, expect, it } from '@jest/globals';
import type { CRCBundle } from '../../client/api/resources.js';
import { bundleNameOf, consumerRefusal } from './bundle-consumers.js';

const bundle = (consumers?: CRCBundle['spec']['consumers']): CRCBundle => ({
  apiVersion: 'guestcluster.opdev.io/v1alpha1',
  kind: 'CRCBundle',
  metadata: { name: 'crc-4-22-custom' },
  spec: { build: { releaseImage: 'r', pullSecretRef: { name: 'p' } }, consumers },
});

describe('which bundle a crc template leads to', () => {
  it.each([
    ['crcBundleRef', { crcBundleRef: { name: 'custom' }, crcVersion: '4.16.0' }, 'custom'],
    ['crcVersion', { crcVersion: '4.16.0' }, 'crc-4.16.0-amd64'],
    ['crcVersion and arch', { crcVersion: '4.16.0', crcArch: 'arm64' }, 'crc-4.16.0-arm64'],
    ['none: the manual path', {}, undefined],
  ])('%s', (_name, template, expected) => {
    expect(bundleNameOf(template)).toBe(expected);
  });
});

describe("a bundle's consumers", () => {
  const ci = { name: 'ci', labels: { 'guestcluster.opdev.io/enabled': 'true', team: 'blue' } };
  it('are every opted-in namespace without a selector, as before', () => {
    expect(consumerRefusal(bundle(), ci)).toBeUndefined();
    expect(consumerRefusal(bundle({}), ci)).toBeUndefined();
  });

  it('are the namespaces the selector selects', () => {
    expect(
      consumerRefusal(bundle({ namespaceSelector: { matchLabels: { team: 'blue' } } }), ci),
    ).toBeUndefined();
    expect(
      consumerRefusal(bundle({ namespaceSelector: { matchLabels: { team: 'red' } } }), ci),
    ).toBe(
      "CRCBundle crc-4-22-custom may be used only by namespaces its spec.consumers.namespaceSelector selects (team=red), and namespace ci is not one of them: ask the bundle's admin to select it, or use another bundle",
    );
    expect(
      consumerRefusal(
        bundle({ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } }),
        { name: 'other', labels: undefined },
      ),
    ).toContain('(team), and namespace other is not one of them');
  });
});
