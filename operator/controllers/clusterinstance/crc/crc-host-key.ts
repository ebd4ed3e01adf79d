import { SECRETS } from '../../../../client/api/resources.js';
import type { Secret } from '../../../kube/workloads.js';
import { decodeBase64 } from '../core/encoding.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import { handoffSecretName } from './crc-naming.js';

/** An OpenSSH public key line of a host key type sshd offers. */
const HOST_KEY = /^(ssh-ed25519|ecdsa-sha2-nistp(256|384|521)|ssh-rsa) [A-Za-z0-9+/]+=*$/;

/**
 * Records the guest's SSH host key, as the crc-agent met it on first contact with this VMI (it
 * puts it into the handoff Secret at once), in the instance's status: status.crc.sshHostKey. Only
 * the first one counts; later agent runs for the VMI read it there and refuse any other key.
 */
export function recordHostKey(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
  vmiUid: string,
): void {
  if (draft.status.crc?.sshHostKey?.vmiUID === vmiUid) return;
  const secret = objects.cached<Secret>(
    SECRETS,
    handoffSecretName(objects.instance.metadata.name, vmiUid),
  );
  if (decodeBase64(secret?.data?.vmiUID) !== vmiUid) return;
  const publicKey = decodeBase64(secret?.data?.sshHostKey).trim();
  if (publicKey.length > 4096 || !HOST_KEY.test(publicKey)) return;
  draft.status.crc = { ...draft.status.crc, sshHostKey: { vmiUID: vmiUid, publicKey } };
}
