// Jest loads global set-up through Node's own ES module loader, which cannot resolve our
// TypeScript sources, so this runs their build ("npm test" builds first, see "pretest").
import { access } from 'node:fs/promises';

const lifecycle = new URL('../../dist/test/jest/lifecycle.js', import.meta.url);

export default async function globalSetup() {
  await access(lifecycle).catch(() => {
    throw new Error('dist/ is missing: run the tests with "npm test", which builds first');
  });
  const { startTestControlPlane } = await import(lifecycle.href);
  await startTestControlPlane();
}
