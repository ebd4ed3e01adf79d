import type { Secret } from '../../../kube/workloads.js';
import { HANDOFF_KEYS } from '../../../../contracts/handoff.js';
import { decodeBase64 } from '../core/encoding.js';

/** What the agent hands over for one VMI (crc-agent output contract). */
export interface Handoff {
  kubeconfig: string;
  ocpVersion: string;
}

/**
 * The handoff in a Secret, when it is complete and for this VMI
 * (docs/reference/instances.md#crc-provisioning). The operator makes the Secret empty before the
 * agent runs, so empty means "not yet".
 */
export function handoffFrom(secret: Secret | undefined, vmiUid: string): Handoff | undefined {
  const kubeconfig = decodeBase64(secret?.data?.[HANDOFF_KEYS.kubeconfig]);
  if (!kubeconfig || decodeBase64(secret?.data?.[HANDOFF_KEYS.vmiUid]) !== vmiUid) return undefined;
  return { kubeconfig, ocpVersion: decodeBase64(secret?.data?.[HANDOFF_KEYS.ocpVersion]) };
}
