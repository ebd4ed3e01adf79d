import { runMain } from '../lib/index.js';

await runMain();
