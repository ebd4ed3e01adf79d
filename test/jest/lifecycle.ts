import path from 'node:path';
import { adminAccessFromFile } from '../../dev/support/admin-access.js';
import { ensureAdmissionPolicies } from '../../operator/controllers/admission/policy-keeper.js';
import { ApiClient } from '../../client/kube/api-client.js';
import { ObjectClient } from '../../operator/kube/kube-client.js';
import { LocalControlPlane, auditLogPath } from '../../dev/control-plane/control-plane.js';
import { installProjectCrds } from '../../dev/control-plane/install-crds.js';
import { QEMU_IMG, requireTools } from '../../dev/control-plane/required-tools.js';
import { HostedGuestBroker } from '../support/shared-hosted-guest.js';
import { writeSecretFile } from '../../dev/control-plane/kubeconfig-file.js';
import { OidcIssuer } from '../../dev/oidc/oidc-issuer.js';
import { localJwtAuthenticator } from '../../dev/oidc/direct-authentication.js';
import { TEST_ENV } from '../support/test-env.js';
import { namespacesDeleted } from './namespaces-deleted.js';

async function installAdmissionPolicies(kubeconfigPath: string): Promise<void> {
  const api = new ApiClient(adminAccessFromFile(kubeconfigPath));
  try {
    await ensureAdmissionPolicies(new ObjectClient(api));
  } finally {
    await api.close();
  }
}

let running: LocalControlPlane | undefined;
let hostedGuests: HostedGuestBroker | undefined;
/** The local issuer whose tokens the control plane accepts as they are (direct authentication). */
let directIssuer: OidcIssuer | undefined;

/** Starts one control plane for the whole test run and tells the test files where it is. */
export async function startTestControlPlane(): Promise<void> {
  const started = Date.now();
  await requireTools([QEMU_IMG]);
  const log = (message: string): boolean => process.stderr.write(`[control plane] ${message}\n`);
  let crds: string[] = [];
  directIssuer = await OidcIssuer.start({ path: '/direct' });
  running = await LocalControlPlane.start({
    log,
    jwtAuthenticators: [localJwtAuthenticator(directIssuer)],
    beforeControllers: async (kubeconfigPath) => {
      crds = await installProjectCrds(kubeconfigPath, log);
      // The admission policies every install has (the operator keeps them), for every file.
      await installAdmissionPolicies(kubeconfigPath);
    },
  });
  log(
    `Ready in ${((Date.now() - started) / 1000).toFixed(1)}s with ${crds.length} CRDs; state in ${running.stateDir}`,
  );
  // Test workers start after global set-up and inherit this environment.
  process.env[TEST_ENV.kubeconfig] = running.kubeconfigPath;
  process.env[TEST_ENV.binDir] = path.dirname(running.binaries.kubectl);
  process.env[TEST_ENV.kubectl] = running.binaries.kubectl;
  process.env[TEST_ENV.etcd] = running.binaries.etcd;
  process.env[TEST_ENV.auditLog] = auditLogPath(running.stateDir);
  // Test files mint the direct issuer's tokens themselves, with its key (mode 0600).
  const issuerKey = path.join(running.stateDir, 'direct-issuer-key.json');
  await writeSecretFile(issuerKey, JSON.stringify(await directIssuer.exportSigningKey()));
  process.env[TEST_ENV.directIssuerKey] = issuerKey;
  hostedGuests = await HostedGuestBroker.start();
  process.env[TEST_ENV.hostedGuest] = hostedGuests.socketPath;
}

/**
 * Stops the run's control plane once the test files' namespaces are gone; its processes and
 * state folder go with it, and the shared hosted guest before it.
 */
export async function stopTestControlPlane(): Promise<void> {
  try {
    if (running) await namespacesDeleted(running.kubeconfigPath);
  } finally {
    await hostedGuests?.stop();
    hostedGuests = undefined;
    await running?.stop();
    running = undefined;
    await directIssuer?.close();
    directIssuer = undefined;
  }
}
