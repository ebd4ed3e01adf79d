import { runPost } from '../lib/index.js';

await runPost();
// An upload given up at its deadline may hold a socket open.
process.exit();
