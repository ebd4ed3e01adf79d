// Fails when the product (operator, crc-agent, action, contracts) compiles anything from test/ or
// dev/: the images build it from those four folders alone, and the Action bundle from action/.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = process.cwd();
const product = ['action', 'operator', 'crc-agent', 'contracts'].map(
  (d) => path.join(root, d) + path.sep,
);
const files = execFileSync(
  path.join(root, 'node_modules', '.bin', 'tsc'),
  ['-p', 'tsconfig.product.json', '--listFilesOnly'],
  { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
)
  .split('\n')
  .filter((file) => file && !file.includes(`${path.sep}node_modules${path.sep}`));
const outside = files.filter((file) => !product.some((dir) => file.startsWith(dir)));
if (outside.length > 0) {
  process.stderr.write(
    `The product compiles files outside its folders (an import from test/ or dev/?):\n${outside.map((f) => `  ${path.relative(root, f)}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `The product's ${files.length} files are all under ${['action', 'operator', 'crc-agent', 'contracts'].join(', ')}.\n`,
);
