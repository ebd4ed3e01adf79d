import { projectRoot } from '../../control-plane/project-root.js';
import { ALLOWED_RULES } from './allowed-rules.js';
import { formatChange } from './change.js';
import { crdChanges, unusedAllowances } from './crd-changes.js';
import {
  currentCrds,
  lastRelease,
  RELEASED_FOLDER,
  unrecordedDifferences,
} from './released-crds.js';

// `npm run check:crd-compat`: every change from the last released CRDs to crds/ that would make
// the apiserver refuse or drop a stored object (docs/reference/api-compatibility.md#the-check).
// With `--release x.y.z` (the release workflow), that crds/ is recorded as that release.
const root = projectRoot();
const releaseFlag = process.argv.indexOf('--release');
if (releaseFlag >= 0) {
  const version = process.argv[releaseFlag + 1] ?? '';
  const problems = unrecordedDifferences(root, version);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  if (problems.length > 0) process.exit(1);
  process.stdout.write(`crds/ is recorded as release ${version}.\n`);
  process.exit(0);
}
const release = lastRelease(root);
if (!release) {
  process.stderr.write(
    `No release is recorded under ${RELEASED_FOLDER}/: run npm run crds:record-release\n`,
  );
  process.exit(1);
}
const current = currentCrds(root);
for (const unused of unusedAllowances(release.crds, current, ALLOWED_RULES))
  process.stdout.write(
    `note: allowed-rules.ts names ${unused.crd} ${unused.version} ${unused.path} ${JSON.stringify(unused.rule)}, which is not new since ${release.version}; remove the entry\n`,
  );
const changes = crdChanges(release.crds, current, ALLOWED_RULES);
for (const change of changes) process.stdout.write(`${formatChange(change)}\n`);
if (changes.length > 0) {
  process.stderr.write(
    `${changes.length} change(s) since release ${release.version} would refuse or drop stored objects; see docs/reference/api-compatibility.md\n`,
  );
  process.exitCode = 1;
} else
  process.stdout.write(
    `The ${current.length} CRDs keep every object release ${release.version} could store.\n`,
  );
