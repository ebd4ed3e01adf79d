import { checkRepository, formatFinding } from './check-references.js';

// `npm run check:references`: every citation of a document outside the repository and every
// docs/ link that leads nowhere, as file:line:column (docs/adr/0039-references-the-repository-holds.md).
const findings = checkRepository();
for (const finding of findings) process.stdout.write(`${formatFinding(finding)}\n`);
if (findings.length > 0) {
  process.stderr.write(
    `${findings.length} reference(s) to fix: cite docs/…#anchor, and link headings that exist\n`,
  );
  process.exitCode = 1;
} else
  process.stdout.write('Every reference is to the repository, and every docs/ link resolves.\n');
