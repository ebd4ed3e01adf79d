// Builds the Action's committed bundles: `npm run bundle` (after `npm run build`).
// One minified ncc bundle holds all code; the entry points that action.yml (main, post) and
// extend/action.yml (extend) name are two-line modules importing it, so every rebuild adds its
// size to the history only once.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = process.cwd();
const out = path.join(root, 'action', 'dist');

await rm(out, { recursive: true, force: true });
execFileSync(
  path.join(root, 'node_modules', '.bin', 'ncc'),
  [
    'build',
    'dist/action/index.js',
    '-o',
    'action/dist/lib',
    '--minify',
    '--no-source-map-register',
  ].concat(['--license', 'licenses.txt', '--quiet']),
  { stdio: 'inherit' },
);
// Self-contained: Node reads the entry points as ES modules wherever the Action is unpacked.
await writeFile(path.join(out, 'package.json'), '{ "type": "module" }\n');
// Post ends its process once done: an artifact upload given up at its deadline can leave a
// request open that would keep Node, and so the job, waiting (as actions/cache's
// src/restoreImpl.ts exits after a restore, for the same reason).
const END = '// An upload given up at its deadline may hold a socket open.\nprocess.exit();\n';
for (const [entry, run, end] of [
  ['main', 'runMain', ''],
  ['post', 'runPost', END],
  // The companion action guestcluster/lease/extend (extend/action.yml).
  ['extend', 'runExtend', ''],
]) {
  await mkdir(path.join(out, entry!), { recursive: true });
  await writeFile(
    path.join(out, entry!, 'index.js'),
    `import { ${run} } from '../lib/index.js';\n\nawait ${run}();\n${end}`,
  );
}
