import { createHash } from 'node:crypto';
import { crcBundleName as bundleNameOf } from '../../../../contracts/names.js';
import type { Instance } from '../core/instance-api.js';

/**
 * Names of a crc instance's objects (docs/reference/naming.md#name-rules). The VM and disk names
 * are the recorded ones when set, so an instance keeps finding what it created. Names that carry a
 * digest stay within 63 characters however long the instance name is.
 */

const MAX_NAME = 63;
const DIGEST_CHARS = 12;

const digest = (text: string): string =>
  createHash('sha256').update(text).digest('hex').slice(0, DIGEST_CHARS);

export function crcVmName(instance: Instance): string {
  return instance.status?.crc?.vmName || instance.metadata.name;
}

export function crcDiskName(instance: Instance): string {
  return instance.status?.crc?.dataVolumeName || `${instance.metadata.name}-rootdisk`;
}

/** The API Service and Route share one name. */
export const crcApiName = (instance: string): string => `${instance}-crc-api`;
export const identitySecretName = (instance: string): string => `${instance}-crc-identity`;
export const bootKeySecretName = (instance: string): string => `${instance}-crc-boot-key`;
/** The instance's own SSH key, which replaces the bundle key in the guest. */
export const instanceSshKeySecretName = (instance: string): string => `${instance}-crc-ssh-key`;
/** Who may reach the guest's SSH and API ports (the VM's launcher pod). */
export const guestNetworkPolicyName = (instance: string): string => `${instance}-crc-guest`;
/** The agent's output for one VMI (the crc-agent output contract); the full UID, no digest. */
export { handoffSecretName, legacyHandoffSecretName } from '../../../../contracts/handoff.js';

/**
 * The agent Job of one VMI: `<instance cut to 40>-crc-agent-<12 hex of sha256(vmiUID)>`. A new VMI
 * gets a new Job; the instance part is cut without trimming, as the reference does.
 */
export function agentJobName(instance: string, vmiUid: string): string {
  const suffix = '-crc-agent-';
  return `${instance.slice(0, MAX_NAME - suffix.length - DIGEST_CHARS)}${suffix}${digest(vmiUid)}`;
}

/** `<instance, cut to fit, trailing - and . trimmed><suffix><12 hex of sha256(instance)>`. */
function perInstanceName(instance: string, suffix: string): string {
  const prefix = instance.slice(0, MAX_NAME - suffix.length - DIGEST_CHARS).replace(/[-.]+$/, '');
  return `${prefix}${suffix}${digest(instance)}`;
}

/** The agent's own ServiceAccount (docs/reference/generated-objects.md#crc-agent-rbac). */
export const agentAccountName = (instance: string): string =>
  perInstanceName(instance, '-crc-agent-');
/**
 * Binds the shared agent ClusterRole (VMI reads) to the agent's account
 * (docs/reference/generated-objects.md#crc-agent-rbac).
 */
export const agentBindingName = (instance: string): string =>
  perInstanceName(instance, '-crc-agent-binding-');
/**
 * The Role that lets the agent write its instance's current handoff Secret and nothing else (ADR
 * 0010).
 */
export const agentHandoffRoleName = (instance: string): string =>
  perInstanceName(instance, '-crc-agent-handoff-');
/** Binds the handoff Role to the agent's account (ADR 0010). */
export const agentHandoffBindingName = (instance: string): string =>
  perInstanceName(instance, '-crc-agent-handoff-binding-');

/** The CRCBundle a turnkey instance clones: crcBundleRef, else `crc-<version>-<arch>`. */
export function crcBundleName(instance: Instance): string | undefined {
  const template = instance.spec.template;
  if (template.crcBundleRef?.name) return template.crcBundleRef.name;
  if (template.crcVersion) return bundleNameOf(template.crcVersion, template.crcArch);
  return undefined;
}
