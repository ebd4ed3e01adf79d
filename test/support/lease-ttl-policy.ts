import type { ApiClient } from '../../client/kube/api-client.js';
import { ObjectClient } from '../../operator/kube/kube-client.js';
import { LEASES } from '../../client/api/resources.js';
import { ensureAdmissionPolicies } from '../../operator/controllers/admission/policy-keeper.js';

/**
 * Installs the operator's admission policies as its policy keeper does (cluster-scoped; applying
 * them again is harmless, so test files share them and leave them in place) and waits until the
 * lease TTL policy refuses, in `namespace`, a lease of `cappedPool` (whose maxLeaseDuration must
 * be below 8760h) with the longest TTL. The apiserver loads policies and their parameters (the
 * pools) through informers, so they take effect a moment later; nothing reports that moment but a
 * request, so this asks with server-side dry runs.
 */
export async function installLeaseTtlPolicy(
  api: ApiClient,
  namespace: string,
  cappedPool: string,
): Promise<void> {
  await ensureAdmissionPolicies(new ObjectClient(api));
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
