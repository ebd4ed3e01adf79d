// The one bundled module: every entry point imports it, so the committed bundle exists once.
export { runExtend } from './run-extend.js';
export { runMain } from './run-main.js';
export { runPost } from './run-post.js';
