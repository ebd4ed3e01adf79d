import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { releaseCommit } from './release-commit.js';

describe('the commit a release is recorded from', () => {
  let root: string;
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'guestcluster-release-commit-'));
    git('init', '-q');
    for (const file of ['package.json', 'operator.ts']) writeFileSync(path.join(root, file), '1');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-qm', 'release');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is HEAD, with the version set but not yet committed and files not tracked', () => {
    writeFileSync(path.join(root, 'package.json'), '2');
    writeFileSync(path.join(root, 'new-file.ts'), '1');
    expect(releaseCommit(root)).toBe(git('rev-parse', 'HEAD'));
  });

  it('is refused while a tracked file differs from HEAD', () => {
    writeFileSync(path.join(root, 'operator.ts'), '2');
    expect(() => releaseCommit(root)).toThrow(
      'commit these first, the release is recorded from HEAD: operator.ts',
    );
  });
});
