import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateApiTypes } from './type-generation.js';

/** Regenerates operator/api/generated/ from crds/ (run from the repository root). */
const outDir = path.resolve('operator/api/generated');
await mkdir(outDir, { recursive: true });
for (const [file, content] of await generateApiTypes(path.resolve('crds'), outDir)) {
  await writeFile(file, content);
  process.stdout.write(`Wrote ${path.relative(process.cwd(), file)}\n`);
}
