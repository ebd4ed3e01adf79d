// Type-checks the product (operator, crc-agent, action, client, contracts) on its own, without the
// test globals, and fails when it compiles anything from test/ or dev/: the images build it from
// those folders alone (the operator's from operator/, client/ and contracts/; crc-agent's from
// crc-agent/, client/ and contracts/), and the Action bundle from action/, client/ and contracts/.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = process.cwd();
const product = ['action', 'operator', 'crc-agent', 'client', 'contracts'];
let listed;
try {
  listed = execFileSync(
    path.join(root, 'node_modules', '.bin', 'tsc'),
    ['-p', 'tsconfig.product.json', '--noEmit', '--listFiles'],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
} catch (error) {
  // tsc lists the files and its errors on stdout; the errors are the lines that name a position.
  const errors = String(error.stdout ?? '')
    .split('\n')
    .filter((line) => /\(\d+,\d+\): error /.test(line));
  process.stderr.write(`The product does not type-check on its own:\n${errors.join('\n')}\n`);
  process.exit(1);
}
const files = listed
  .split('\n')
  .filter((file) => file && !file.includes(`${path.sep}node_modules${path.sep}`));
const folders = product.map((dir) => path.join(root, dir) + path.sep);
const outside = files.filter((file) => !folders.some((dir) => file.startsWith(dir)));
if (outside.length > 0) {
  process.stderr.write(
    `The product compiles files outside its folders (an import from test/ or dev/?):\n${outside.map((f) => `  ${path.relative(root, f)}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `The product's ${files.length} files type-check alone and are all under ${product.join(', ')}.\n`,
);
