import path from 'node:path';
import { runCommand } from '../control-plane/run-command.js';
import { projectRoot } from '../control-plane/project-root.js';

/** The samples the local environment applies as they are: a namespace for CI and its pools. */
const SAMPLES = [
  'namespace.yaml',
  'pull-secret.yaml',
  'clusterpool-crc-version.yaml',
  'clusterpool-hcp.yaml',
];

/** What the applied samples hold, for `local lease` and `local status`. */
export const DEMO = {
  namespace: 'ci',
  pools: ['crc-pool', 'hcp-pool', 'hcp-stream-pool'],
  /** The bundle version of the crc sample pool, which the local mirror serves. */
  crcVersion: '4.16.0',
} as const;

/**
 * Installs what a cluster administrator installs (the deploy manifests without the Deployment)
 * and what a CI team creates (the samples: an enabled namespace, its pull secret, a crc pool on
 * a published bundle version and an hcp pool) and a VersionStream, with kubectl, as they would.
 */
export async function seedLocalEnvironment(kubectl: string, kubeconfig: string): Promise<void> {
  const root = projectRoot();
  const run = (...args: string[]): Promise<unknown> =>
    runCommand(kubectl, ['--kubeconfig', kubeconfig, ...args]);
  await run(
    'apply',
    '--server-side',
    '--force-conflicts',
    '-k',
    path.join(root, 'dev', 'local', 'deploy'),
  );
  await run('apply', ...SAMPLES.flatMap((sample) => ['-f', path.join(root, 'samples', sample)]));
  // The stream the local update-service stand-in answers for (dev/local/local-update-service.ts).
  await run('apply', '-f', path.join(root, 'dev', 'local', 'version-stream.yaml'));
  // A pool that follows the local VersionStream (dev/local/stream-pool.yaml).
  await run('apply', '-f', path.join(root, 'dev', 'local', 'stream-pool.yaml'));
}
