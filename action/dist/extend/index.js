import { runExtend } from '../lib/index.js';

await runExtend();
