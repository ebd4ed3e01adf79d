import type { SealCheck } from './script-output.js';

/** Every check of the seal checklist (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10), by the name its guest script prints. */
export const SEAL_CHECKS = [
  'kubelet-client-cert',
  'kubelet-server-cert',
  'clock',
  'kubelet-pull-secret',
  'pull-secret-marker',
  'kubelet-disabled',
  'nodeip-conf',
  'crc-env',
  'crc-units',
  'tap0',
  'crio-wipe-disabled',
  'layered-packages',
  'journal-clean',
  'cloud-init-clean',
  'build-dns-absent',
  'users-writable',
  'opt-kubeconfig',
  'routes-controller',
  'etcd-peer-url',
  'node-internal-ip',
  'pull-secret-api',
  'kubeadmin-removed',
  'htpass-secret',
  'oauth',
  'cluster-id-empty',
  'operators-stable',
  'etcd-pods',
  'etcd-leases',
] as const;

/** The checks that failed (with their detail) or were never reported, and how many passed. */
export function sealVerdict(checks: readonly SealCheck[]): { failed: string[]; checked: number } {
  const byName = new Map(checks.map((check) => [check.name, check]));
  const failed: string[] = [];
  for (const name of SEAL_CHECKS) {
    const check = byName.get(name);
    if (!check) failed.push(`${name} (not reported)`);
    else if (!check.passed) failed.push(`${name} (${check.detail || 'failed'})`);
  }
  return { failed, checked: SEAL_CHECKS.length - failed.length };
}

/**
 * The string the checklist searches the disk for (docs/bundle-build.md#7-sealing-every-seal-check-passes-p8p10): the first auth entry's token,
 * so that any copy of the real pull secret is found. Undefined for a secret without auths.
 */
export function sealMarker(pullSecretJson: string): string | undefined {
  const parsed = JSON.parse(pullSecretJson) as {
    auths?: Record<string, { auth?: string; password?: string }>;
  };
  const first = Object.values(parsed.auths ?? {})[0];
  const token = first?.auth || first?.password;
  return token && token.length >= 8 ? token : undefined;
}
