// The counterpart of global-setup.js: the same module instance holds the running control plane.
const lifecycle = new URL('../../dist/test/jest/lifecycle.js', import.meta.url);

export default async function globalTeardown() {
  const { stopTestControlPlane } = await import(lifecycle.href);
  await stopTestControlPlane();
}
