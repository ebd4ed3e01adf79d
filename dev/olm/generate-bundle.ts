import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../control-plane/project-root.js';
import { bundleFiles } from './bundle-files.js';

/** Rewrites bundle/ from operator/deploy, crds/ and operator/olm (`npm run generate:bundle`). */
const root = projectRoot();
const bundleDir = path.join(root, 'bundle');
const files = await bundleFiles(root, (line) => process.stdout.write(`${line}\n`));
for (const dir of ['manifests', 'metadata']) {
  // Files the generator no longer writes (a manifest removed from operator/deploy) go.
  for (const entry of await readdir(path.join(bundleDir, dir)).catch(() => []))
    if (!files.has(`${dir}/${entry}`)) await rm(path.join(bundleDir, dir, entry));
}
for (const [file, content] of files) {
  await mkdir(path.dirname(path.join(bundleDir, file)), { recursive: true });
  await writeFile(path.join(bundleDir, file), content);
  process.stdout.write(`Wrote bundle/${file}\n`);
}
