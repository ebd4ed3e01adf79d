import path from 'node:path';
import type { ApiClient } from '../../operator/kube/api-client.js';
import { LEASES } from '../../operator/api/resources.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { kubectl } from './kubectl.js';

const POLICY = path.join(projectRoot(), 'operator', 'deploy', 'lease-ttl-policy.yaml');

/**
 * Installs the lease TTL admission policy of operator/deploy (cluster-scoped; applying it again is
 * harmless, so test files share it and leave it in place: it touches only pools with
 * maxLeaseDuration) and waits until it refuses, in `namespace`, a lease of `cappedPool` (whose
 * maxLeaseDuration must be below 8760h) with the longest TTL. The apiserver loads policies and
 * their parameters (the pools) through informers, so they take effect a moment later; nothing
 * reports that moment but a request, so this asks with server-side dry runs.
 */
export async function installLeaseTtlPolicy(
  api: ApiClient,
  namespace: string,
  cappedPool: string,
): Promise<void> {
  await kubectl(['apply', '--server-side', '--force-conflicts', '-f', POLICY]);
  const probe = {
    apiVersion: LEASES.apiVersion,
    kind: LEASES.kind,
    metadata: { name: 'policy-probe', namespace },
    spec: { poolRef: { name: cappedPool }, ttl: '8760h' },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await api.create(LEASES, probe, { dryRun: true });
    } catch (error) {
      if (String(error).includes('maxLeaseDuration')) return;
      throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`The lease TTL policy did not take effect within 30 s in ${namespace}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
