import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AdminAccess } from '../../support/admin-access.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { BUNDLES } from '../../../client/api/resources.js';
import { LABEL_CRC_BUNDLE } from '../../../contracts/labels.js';
import type { FileServer, TestBundle } from './test-bundle.js';
import { makeTestBundle, serveFolder, writeChecksumFile } from './test-bundle.js';
import { crcAgentImage, SimulatedJobRunner } from '../jobs/simulated-job-runner.js';
import { SimulatedStorage } from '../storage/simulated-storage.js';

export const TEST_AGENT_IMAGE = 'example.test/guestcluster/crc-agent:test';

/**
 * A local stand-in for the bundle mirror: `<base>/<version>/crc_libvirt_<version>_amd64.crcbundle`
 * and `<base>/<version>/sha256sum.txt`, as the published bundles are laid out.
 */
export class TestMirror {
  private constructor(
    readonly dir: string,
    readonly server: FileServer,
  ) {}

  static async start(): Promise<TestMirror> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'test-mirror-'));
    return new TestMirror(dir, await serveFolder(dir));
  }

  get baseUrl(): string {
    return this.server.baseUrl;
  }

  /**
   * Publishes a bundle of `version` in the mirror's folder of that version (or in `folder`); its
   * checksum file lists `digest` (the right one by default).
   */
  async publish(
    version: string,
    options: { digest?: string; folder?: string } = {},
  ): Promise<TestBundle> {
    const folder = options.folder ?? version;
    await mkdir(path.join(this.dir, folder), { recursive: true });
    const bundle = await makeTestBundle(path.join(this.dir, folder), {
      version,
      ocpVersion: `${version}-ocp`,
    });
    await this.writeChecksums(folder, bundle, options.digest ?? bundle.archiveSha256);
    return bundle;
  }

  async writeChecksums(folder: string, bundle: TestBundle, digest: string): Promise<void> {
    await writeChecksumFile(path.join(this.dir, folder), 'sha256sum.txt', {
      [bundle.fileName]: digest,
    });
  }

  async stop(): Promise<void> {
    await this.server.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The simulated storage and Job runner that prep Jobs need, for the bundles a test accepts. */
export interface BundlePlatform {
  storage: SimulatedStorage;
  runner: SimulatedJobRunner;
  stop(): Promise<void>;
}

export async function startBundlePlatform(
  kubeConfig: AdminAccess,
  namespace: string,
  accept: (bundleName: string) => boolean,
): Promise<BundlePlatform> {
  const storage = await SimulatedStorage.start({ kubeConfig, namespace });
  const runner = await SimulatedJobRunner.start({
    kubeConfig,
    namespace,
    storage,
    images: crcAgentImage(TEST_AGENT_IMAGE),
    accept: (job) => accept(job.metadata?.labels?.[LABEL_CRC_BUNDLE] ?? ''),
  });
  return {
    storage,
    runner,
    stop: async () => {
      await runner.stop();
      await storage.stop();
    },
  };
}

/** A CRCBundle, with the labels that put it in an operator's scope (--scope-labels). */
export function crcBundle(
  name: string,
  spec: CRCBundle['spec'],
  labels: Readonly<Record<string, string>> = {},
): CRCBundle {
  return {
    apiVersion: BUNDLES.apiVersion,
    kind: BUNDLES.kind,
    metadata: { name, labels: { ...labels } },
    spec,
  };
}
