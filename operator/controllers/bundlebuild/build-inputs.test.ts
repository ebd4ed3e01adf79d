import { describe, expect, it } from '@jest/globals';
import { contentDigest, snapshotItems } from './build-inputs.js';

describe('the build inputs', () => {
  it('digests keys and values, so that moving bytes between them changes the digest', () => {
    const a = contentDigest([['ab', Buffer.from('c')]]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(contentDigest([['a', Buffer.from('bc')]])).not.toBe(a);
    expect(contentDigest([['ab', Buffer.from('c')]])).toBe(a);
  });

  it('mounts each manifest object as <NN>-<name>/<key> under its role, the pull secret as one file', () => {
    const records = [
      { role: 'PullSecret', kind: 'Secret', namespace: 'ops', name: 'pull', sha256: 'x' },
      {
        role: 'InstallationManifest',
        kind: 'ConfigMap',
        namespace: 'ops',
        name: 'mc',
        sha256: 'x',
      },
      { role: 'PostInstallManifest', kind: 'Secret', namespace: 'ops', name: 'later', sha256: 'x' },
    ];
    const items = snapshotItems(records, [
      'pull-secret',
      'install-00-99-a.yaml',
      'post-00-x.yaml',
      'post-01-y.yaml',
    ]);
    expect(items).toEqual({
      pullSecret: [{ key: 'pull-secret', path: '.dockerconfigjson' }],
      install: [{ key: 'install-00-99-a.yaml', path: '00-mc/99-a.yaml' }],
      // No object at index 1: a key of no recorded object is not mounted.
      post: [{ key: 'post-00-x.yaml', path: '00-later/x.yaml' }],
    });
  });
});
