import { describe, expect, it } from '@jest/globals';
import type { CrdManifest, CrdVersion } from '../../control-plane/platform-crds/crd-manifest.js';
import { projectRoot } from '../../control-plane/project-root.js';
import type { AllowedRule } from './allowed-rules.js';
import { ALLOWED_RULES } from './allowed-rules.js';
import { formatChange } from './change.js';
import { crdChanges, unusedAllowances } from './crd-changes.js';
import { currentCrds, lastRelease } from './released-crds.js';

const NAME = 'widgets.test.opdev.io';

const version = (name: string, extra: Partial<CrdVersion> = {}): CrdVersion => ({
  name,
  served: true,
  storage: name === 'v1alpha1',
  schema: {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { size: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.size >= 0' }],
        },
      },
    },
  },
  ...extra,
});

const crd = (change: (spec: CrdManifest['spec']) => void = () => undefined): CrdManifest => {
  const manifest: CrdManifest = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: 'test.opdev.io',
      scope: 'Namespaced',
      names: {
        kind: 'Widget',
        listKind: 'WidgetList',
        plural: 'widgets',
        singular: 'widget',
        shortNames: ['wdg'],
        categories: ['guestcluster'],
      },
      versions: [version('v1alpha1')],
    },
  };
  change(manifest.spec);
  return manifest;
};

const rules = (released: CrdManifest[], current: CrdManifest[]): string[] =>
  crdChanges(released, current).map((c) => `${c.version}${c.path}: ${c.rule}`);

describe('crdChanges', () => {
  it('finds a removed CRD, and lets a new one pass', () => {
    expect(rules([crd()], [])).toEqual([': crd-removed']);
    expect(rules([], [crd()])).toEqual([]);
  });

  it('finds a changed scope, and lets the same scope pass', () => {
    expect(rules([crd()], [crd((s) => (s.scope = 'Cluster'))])).toEqual([': scope-changed']);
    expect(rules([crd()], [crd()])).toEqual([]);
  });

  it('finds changed names and a lost short name or category, and lets new ones pass', () => {
    const renamed = crd((s) => {
      s.names.kind = 'Gadget';
      s.names.shortNames = [];
      s.names.categories = ['other'];
    });
    expect(crdChanges([crd()], [renamed]).map((c) => c.message.split(':')[0])).toEqual([
      'names.kind "Widget" became "Gadget"',
      'names.shortNames lost "wdg"',
      'names.categories lost "guestcluster"',
    ]);
    const more = crd((s) => {
      s.names.shortNames = ['wdg', 'w'];
      s.names.categories = ['guestcluster', 'all'];
    });
    expect(rules([crd()], [more])).toEqual([]);
  });

  it('finds a removed or unserved version, and lets a new version pass', () => {
    expect(rules([crd()], [crd((s) => (s.versions = [version('v1beta1')]))])).toEqual([
      'v1alpha1: version-removed',
    ]);
    const unserved = crd((s) => (s.versions = [version('v1alpha1', { served: false })]));
    expect(rules([crd()], [unserved])).toEqual(['v1alpha1: version-removed']);
    const added = crd((s) => s.versions.push(version('v1beta1')));
    expect(rules([crd()], [added])).toEqual([]);
  });

  it("compares each version's schema, and names the CRD, version, path and rule", () => {
    const narrowed = crd((s) => {
      const spec = s.versions[0]!.schema.openAPIV3Schema.properties as Record<string, object>;
      spec.spec = { type: 'object', properties: { size: { type: 'string' } } };
    });
    expect(crdChanges([crd()], [narrowed]).map(formatChange)).toEqual([
      `${NAME} v1alpha1 .spec.size: type-changed: type integer became string: stored integer values no longer validate`,
    ]);
  });

  it('lets a new CEL rule pass only where the allow-list names it exactly, with a reason', () => {
    const stricter = crd((s) => {
      const spec = (s.versions[0]!.schema.openAPIV3Schema.properties as Record<string, object>)
        .spec as Record<string, unknown>;
      spec['x-kubernetes-validations'] = [{ rule: 'self.size >= 0' }, { rule: 'self.size < 100' }];
    });
    const allowed: AllowedRule = {
      crd: NAME,
      version: 'v1alpha1',
      path: '.spec',
      rule: 'self.size < 100',
      reason: 'size was capped at 99 by the controller since the first release',
    };
    expect(rules([crd()], [stricter])).toEqual(['v1alpha1.spec: validation-added']);
    expect(crdChanges([crd()], [stricter], [allowed])).toEqual([]);
    expect(crdChanges([crd()], [stricter], [{ ...allowed, rule: 'self.size < 10' }])).toHaveLength(
      1,
    );
    expect(crdChanges([crd()], [stricter], [{ ...allowed, path: '.spec.size' }])).toHaveLength(1);
    expect(unusedAllowances([crd()], [stricter], [allowed])).toEqual([]);
    expect(unusedAllowances([stricter], [stricter], [allowed])).toEqual([allowed]);
  });
});

describe('the CRDs of this repository', () => {
  it('keep every object the last recorded release could store', () => {
    const root = projectRoot();
    const release = lastRelease(root);
    // Every CRD of the release is still installed; new ones may have come since.
    expect(currentCrds(root).map((c) => c.metadata.name)).toEqual(
      expect.arrayContaining(release!.crds.map((c) => c.metadata.name)),
    );
    expect(crdChanges(release!.crds, currentCrds(root), ALLOWED_RULES).map(formatChange)).toEqual(
      [],
    );
  });

  it('allow new CEL rules only with a reason, and only rules that are new', () => {
    for (const entry of ALLOWED_RULES) expect(entry.reason.trim()).not.toBe('');
    const root = projectRoot();
    expect(unusedAllowances(lastRelease(root)!.crds, currentCrds(root), ALLOWED_RULES)).toEqual([]);
  });
});
