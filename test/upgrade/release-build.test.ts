import { describe, expect, it } from '@jest/globals';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { releaseBuild } from './release-build.js';

describe("building a release's operator from the clone's history", () => {
  it('fails, saying how to get it, when the commit is not in the history (a shallow clone)', async () => {
    const missing = '0'.repeat(40);
    await expect(releaseBuild(projectRoot(), missing)).rejects.toThrow(
      `Commit ${missing} is not in this clone's history, so the release it records cannot be built: fetch the whole history (git fetch --unshallow), or that commit (git fetch origin ${missing})`,
    );
    await expect(releaseBuild(projectRoot(), 'HEAD')).rejects.toThrow(
      'HEAD is not a full commit hash',
    );
  });
});
