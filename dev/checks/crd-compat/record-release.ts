import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../control-plane/project-root.js';
import { releaseCommit } from './release-commit.js';
import { recordRelease } from './released-crds.js';

// `npm run crds:record-release`: records crds/ and HEAD's commit as the release of package.json's
// version, the baseline the compatibility check compares with and the operator the upgrade test
// builds (docs/reference/api-compatibility.md#recording-a-release).
const root = projectRoot();
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
};
for (const file of recordRelease(root, version, releaseCommit(root)))
  process.stdout.write(`Wrote ${file}\n`);
