import ssh2 from 'ssh2';
import { SECRETS } from '../../../client/api/resources.js';
import type { Desired } from '../../kube/objects.js';
import type { Secret } from '../../kube/workloads.js';
import type { Bundle } from './build-meta.js';
import { buildMeta } from './build-meta.js';
import type { BuildNames } from './build-names.js';

export const SSH_KEY_FILES = { privateKey: 'id_ecdsa', publicKey: 'id_ecdsa.pub' } as const;

/**
 * The build's SSH key (docs/bundle-build.md#stage-map): ECDSA P-521 as snc generates it. The guest accepts it
 * from the live ISO on, and it is published as the bundle's key (`<bundle>-ssh-key`).
 */
export function buildSshKeySecret(
  bundle: Bundle,
  attempt: string,
  ns: string,
  names: BuildNames,
): Desired<Secret> {
  const pair = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 521 });
  return {
    apiVersion: 'v1',
    kind: SECRETS.kind,
    metadata: buildMeta(bundle, attempt, ns, names.sshKey),
    type: 'Opaque',
    data: {
      [SSH_KEY_FILES.privateKey]: Buffer.from(pair.private).toString('base64'),
      [SSH_KEY_FILES.publicKey]: Buffer.from(`${pair.public.trim()}\n`).toString('base64'),
    },
  };
}
