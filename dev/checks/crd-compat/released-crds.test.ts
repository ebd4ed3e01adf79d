import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../control-plane/project-root.js';
import {
  compareVersions,
  currentCrds,
  lastRelease,
  readReleaseRecord,
  recordRelease,
  unrecordedDifferences,
} from './released-crds.js';

const COMMIT = 'a'.repeat(40);

const crdYaml = (plural: string): string =>
  [
    '# a comment kept in the record',
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    `metadata: { name: ${plural}.test.opdev.io }`,
    'spec:',
    '  group: test.opdev.io',
    '  scope: Namespaced',
    `  names: { kind: K, plural: ${plural} }`,
    '  versions: []',
    '',
  ].join('\n');

describe('release versions', () => {
  it('sort numerically, a pre-release before its release', () => {
    expect(['0.10.0', '1.0.0', '0.9.0', '1.0.0-rc.1', '0.9.1'].sort(compareVersions)).toEqual([
      '0.9.0',
      '0.9.1',
      '0.10.0',
      '1.0.0-rc.1',
      '1.0.0',
    ]);
  });
});

describe('recording a release', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'guestcluster-crd-release-'));
    mkdirSync(path.join(root, 'crds'));
    writeFileSync(
      path.join(root, 'crds', 'kustomization.yaml'),
      'resources:\n  - a.yaml\n  - b.yaml\n',
    );
    writeFileSync(path.join(root, 'crds', 'a.yaml'), crdYaml('as'));
    writeFileSync(path.join(root, 'crds', 'b.yaml'), crdYaml('bs'));
    writeFileSync(path.join(root, 'crds', 'not-installed.yaml'), crdYaml('cs'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('copies the CRDs the kustomization installs, and the check reads the newest release', () => {
    expect(lastRelease(root)).toBeUndefined();
    expect(recordRelease(root, '0.9.0', COMMIT)).toEqual([
      path.join('crds', 'released', '0.9.0', 'a.yaml'),
      path.join('crds', 'released', '0.9.0', 'b.yaml'),
      path.join('crds', 'released', '0.9.0', 'release.json'),
    ]);
    expect(readReleaseRecord(root, '0.9.0')).toEqual({ version: '0.9.0', commit: COMMIT });
    writeFileSync(path.join(root, 'crds', 'b.yaml'), crdYaml('bees'));
    recordRelease(root, '0.10.0', COMMIT);
    const recorded = readFileSync(path.join(root, 'crds', 'released', '0.10.0', 'b.yaml'), 'utf8');
    expect(recorded).toMatch(/^# The CRD as release 0\.10\.0 shipped it/);
    expect(recorded).toContain(crdYaml('bees'));
    const release = lastRelease(root);
    expect(release?.version).toBe('0.10.0');
    expect(release?.crds.map((c) => c.metadata.name)).toEqual([
      'as.test.opdev.io',
      'bees.test.opdev.io',
    ]);
    expect(currentCrds(root).map((c) => c.metadata.name)).toEqual(
      release?.crds.map((c) => c.metadata.name),
    );
  });

  it('never writes a recorded release again, and takes only x.y.z versions', () => {
    recordRelease(root, '0.9.0', COMMIT);
    writeFileSync(path.join(root, 'crds', 'a.yaml'), crdYaml('changed'));
    expect(() => recordRelease(root, '0.9.0', COMMIT)).toThrow(
      /release 0\.9\.0 is recorded already/,
    );
    expect(lastRelease(root)?.crds[0]?.metadata.name).toBe('as.test.opdev.io');
    expect(() => recordRelease(root, '../x', COMMIT)).toThrow(/is not x\.y\.z/);
    expect(() => recordRelease(root, '0.9.1', 'HEAD')).toThrow(/not a full commit hash/);
  });

  it('names the release record that is missing its commit', () => {
    recordRelease(root, '0.9.0', COMMIT);
    writeFileSync(
      path.join(root, 'crds', 'released', '0.9.0', 'release.json'),
      '{"version":"0.9.0"}',
    );
    expect(() => readReleaseRecord(root, '0.9.0')).toThrow(
      `${path.join('crds', 'released', '0.9.0', 'release.json')} must hold`,
    );
  });

  it('tells a release whose CRDs are not recorded as crds/ holds them', () => {
    expect(unrecordedDifferences(root, '0.9.0')).toEqual([
      `${path.join('crds', 'released', '0.9.0')} does not exist: run npm run crds:record-release for 0.9.0`,
    ]);
    recordRelease(root, '0.9.0', COMMIT);
    expect(unrecordedDifferences(root, '0.9.0')).toEqual([]);
    writeFileSync(path.join(root, 'crds', 'b.yaml'), crdYaml('changed'));
    expect(unrecordedDifferences(root, '0.9.0')).toEqual([
      `${path.join('crds', 'released', '0.9.0', 'b.yaml')} differs from crds/b.yaml`,
    ]);
  });
});

describe('the recorded releases of this repository', () => {
  it('name the commit each was recorded from, which the upgrade test builds', () => {
    expect(readReleaseRecord(projectRoot(), '0.1.0')).toEqual({
      version: '0.1.0',
      commit: 'd299daeb292f7dfd2091881758e115ed1ad55e07',
    });
  });
});
