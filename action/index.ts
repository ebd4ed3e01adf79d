// The one bundled module: both entry points import it, so the committed bundle exists once.
export { runMain } from './run-main.js';
export { runPost } from './run-post.js';
