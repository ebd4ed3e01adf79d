import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateApiTypes } from './type-generation.js';

/**
 * Regenerates client/api/generated/, the API types the operator, the Action and the CLI share,
 * from crds/ (run from the repository root).
 */
const outDir = path.resolve('client/api/generated');
await mkdir(outDir, { recursive: true });
for (const [file, content] of await generateApiTypes(path.resolve('crds'), outDir)) {
  await writeFile(file, content);
  process.stdout.write(`Wrote ${path.relative(process.cwd(), file)}\n`);
}
