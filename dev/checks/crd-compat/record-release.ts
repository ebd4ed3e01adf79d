import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../control-plane/project-root.js';
import { recordRelease } from './released-crds.js';

// `npm run crds:record-release`: records crds/ as the release of package.json's version, the
// baseline the compatibility check compares with (docs/reference/api-compatibility.md#recording-a-release).
const root = projectRoot();
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
};
for (const file of recordRelease(root, version)) process.stdout.write(`Wrote ${file}\n`);
