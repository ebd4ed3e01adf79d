/** Environment variables through which global set-up hands the control plane to the test files. */
export const TEST_ENV = {
  kubeconfig: 'GUESTCLUSTER_TEST_KUBECONFIG',
  binDir: 'GUESTCLUSTER_TEST_BIN_DIR',
  kubectl: 'GUESTCLUSTER_TEST_KUBECTL',
  etcd: 'GUESTCLUSTER_TEST_ETCD',
  auditLog: 'GUESTCLUSTER_TEST_AUDIT_LOG',
  /** The Unix socket of the run's hosted guest broker (test/support/shared-hosted-guest.ts). */
  hostedGuest: 'GUESTCLUSTER_TEST_HOSTED_GUEST',
  /** The signing key of the issuer the control plane authenticates directly (0600 JSON). */
  directIssuerKey: 'GUESTCLUSTER_TEST_DIRECT_ISSUER_KEY',
} as const;

export function testEnv(name: keyof typeof TEST_ENV): string {
  const value = process.env[TEST_ENV[name]];
  if (!value)
    throw new Error(
      `${TEST_ENV[name]} is not set: run the tests through "npm test" (Jest global set-up starts the control plane)`,
    );
  return value;
}
