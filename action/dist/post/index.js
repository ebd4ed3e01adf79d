import { runPost } from '../lib/index.js';

await runPost();
