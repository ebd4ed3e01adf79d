import { execFileSync } from 'node:child_process';

/** What a release commit may change besides the record itself: the version it sets. */
const VERSION_FILES = new Set(['package.json', 'package-lock.json']);

/**
 * The commit a release is recorded from: HEAD, whose tree must be what is released, so that the
 * upgrade test builds the release's operator from it. Refused while tracked files other than the
 * version's differ from HEAD: the record would name a commit that is not the release.
 */
export function releaseCommit(root: string): string {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
  const changed = git('diff', '--name-only', 'HEAD')
    .split('\n')
    .filter((file) => file && !VERSION_FILES.has(file));
  if (changed.length > 0)
    throw new Error(`commit these first, the release is recorded from HEAD: ${changed.join(', ')}`);
  return git('rev-parse', 'HEAD');
}
