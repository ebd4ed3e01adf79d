import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AdminAccess } from '../../dev/support/admin-access.js';
import { createServingPki } from '../../dev/control-plane/pki.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import type { CommandResult } from '../../dev/control-plane/run-command.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { waitFor } from '../../dev/support/wait-for.js';
import type { CIAccessPolicy } from '../../client/api/resources.js';
import { CI_ACCESS_POLICIES } from '../../client/api/resources.js';
import type { Condition } from '../../client/api/conditions.js';
import type { TokenExchangeSettings } from '../../operator/exchange/exchange-settings.js';
import type { TestNamespace } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import { testEnv } from '../support/test-env.js';

/** The ServiceAccount the docs give CI (samples/ci-identity-rbac.yaml), in the test namespace. */
export const CI_SERVICE_ACCOUNT = 'guestcluster-ci';

/** Applies samples/ci-identity-rbac.yaml in the test namespace: what the exchanged tokens may do. */
export async function installCiIdentity(ns: TestNamespace): Promise<void> {
  const text = await readFile(path.join(projectRoot(), 'samples', 'ci-identity-rbac.yaml'), 'utf8');
  await kubectl(['apply', '-f', '-'], text.replaceAll('namespace: ci', `namespace: ${ns.name}`));
}

/** The exchange's serving certificate in a folder, as the platform would mount it, and its CA. */
export async function exchangeCertificate(): Promise<{ certDir: string; caPem: string }> {
  const pki = createServingPki('localhost');
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'exchange-cert-'));
  await writeFile(path.join(certDir, 'tls.crt'), pki.server.certificatePem, { mode: 0o600 });
  await writeFile(path.join(certDir, 'tls.key'), pki.server.keyPem, { mode: 0o600 });
  return { certDir, caPem: pki.ca.certificatePem };
}

/** The test operator's exchange settings: on a free port of 127.0.0.1, trusting the issuers' CAs. */
export function exchangeSettings(
  certDir: string,
  issuerCas: string[],
  limits = { burst: 5, perMinute: 6 },
): TokenExchangeSettings {
  return {
    address: { host: '127.0.0.1', port: 0 },
    certDir,
    hostname: 'localhost',
    issuerCaCertificates: issuerCas.join(''),
    limits,
  };
}

/** A policy object of the test's (cluster-scoped: the test deletes it). */
export function policy(
  name: string,
  spec: CIAccessPolicy['spec'],
): CIAccessPolicy & { metadata: { name: string } } {
  return {
    apiVersion: CI_ACCESS_POLICIES.apiVersion,
    kind: CI_ACCESS_POLICIES.kind,
    metadata: { name },
    spec,
  };
}

/** Waits for the operator to write the policy's Ready condition with this reason. */
export async function policyReady(
  ns: TestNamespace,
  name: string,
  reason: string,
): Promise<Condition> {
  const ready = (object: CIAccessPolicy): Condition | undefined =>
    object.status?.conditions?.find((c) => c.type === 'Ready' && c.reason === reason);
  const seen = await waitFor<CIAccessPolicy>(ns.kubeConfig, {
    type: CI_ACCESS_POLICIES,
    name,
    until: (object) => object !== undefined && ready(object) !== undefined,
    timeoutMs: 20_000,
    description: `CIAccessPolicy ${name} to be Ready with reason ${reason}`,
  });
  return ready(seen!)!;
}

/**
 * kubectl as the holder of `token` alone (no client certificate beside it), through a
 * kubeconfig of its own (0600, in a folder of the test's).
 */
export async function kubectlWithToken(
  admin: AdminAccess,
  token: string,
): Promise<(args: string[]) => Promise<CommandResult>> {
  const cluster = admin.getCurrentCluster();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'exchanged-'));
  const file = path.join(dir, 'kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData },
      },
    ],
    users: [{ name: 'u', user: { token } }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  };
  await writeFile(file, JSON.stringify(config), { mode: 0o600 });
  return (args) => runCommand(testEnv('kubectl'), ['--kubeconfig', file, ...args]);
}
