// Jest's transform for our TypeScript: Node's own type stripping (the same that runs `.ts` files
// natively), in its transform mode for the parameter properties our classes use. It only removes
// types, as tsconfig's isolatedModules and verbatimModuleSyntax already guarantee is enough;
// type-checking is `npm run typecheck`'s. TypeScript's own transpiler took about three times as
// long per file, on every worker that met a file first, in a run bound by its two cores.
import { createHash } from 'node:crypto';
import { stripTypeScriptTypes } from 'node:module';

/** @type {import('@jest/transform').SyncTransformer} */
const transformer = {
  canInstrument: false,
  getCacheKey(source, filename) {
    return createHash('sha256')
      .update(process.version)
      .update('\0')
      .update(filename)
      .update('\0')
      .update(source)
      .digest('hex');
  },
  process(source, filename) {
    // The source map is inlined into the code, where Jest reads it for stack traces.
    const code = stripTypeScriptTypes(source, {
      mode: 'transform',
      sourceMap: true,
      sourceUrl: filename,
    });
    return { code };
  },
};

export default transformer;
