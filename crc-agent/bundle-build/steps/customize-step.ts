import { readFile } from 'node:fs/promises';
import { buildHtpasswd } from '../../htpasswd.js';
import { waitForPool, waitForStableCluster } from '../cluster-waits.js';
import { readManifestFolders } from '../manifest-folders.js';
import type { StepRunner } from '../step-context.js';
import { GUEST_WORK_DIR, WORK_FILES, workPath } from '../work-files.js';

/**
 * P8, what snc.sh does from the cred manager's removal to its next stable cluster, and its proxy
 * removal (docs/adr/0032-bundle-build-guest-side.md#ported-and-replaced): the htpasswd is
 * made here with bcrypt (developer/developer and the installer's kubeadmin password) and reaches
 * the guest on stdin; the bundle's post-install manifests go in as a tar stream; then the guest
 * script, and a stable cluster once the MCO has rolled out the removal of chronyd-mask.
 */
export const runCustomize: StepRunner<'customize'> = async (context) => {
  const { config, log } = context;
  const guest = await context.guest();
  const passwordFile = workPath(config.paths.work, WORK_FILES.kubeadminPassword);
  const kubeadmin = (
    await readFile(passwordFile, 'utf8').catch(() => {
      throw context.fail(
        'InstallerOutputMissing',
        `${WORK_FILES.kubeadminPassword} is not on the work volume: the ignition step copies the installer's auth folder there`,
      );
    })
  ).trim();
  const htpasswd = buildHtpasswd('', { developer: 'developer', kubeadmin });
  const manifests = await readManifestFolders(config.paths.postInstallManifests);
  const work = GUEST_WORK_DIR.target;
  if (manifests.length > 0)
    await guest.sendFiles(
      `${work}/post-install`,
      manifests.map((file) => ({ name: file.name, content: file.content })),
    );
  await guest.script('customize', {
    args: [work, 'false'],
    input: [Buffer.from(htpasswd).toString('base64')],
  });
  log.info({ postInstallManifests: manifests.length }, 'Guest cluster customized');
  await waitForPool(context, guest);
  await waitForStableCluster(context, guest);
  return {};
};
