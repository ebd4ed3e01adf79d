import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { CI_ACCESS_POLICIES } from '../../client/api/resources.js';
import { ExchangeRefusedError, exchangeIdToken } from '../../client/lease/token-exchange-client.js';
import { OidcIssuer } from '../../dev/oidc/oidc-issuer.js';
import { kubectl } from '../support/kubectl.js';
import { impersonating } from '../support/tenant.js';
import { useWorld } from '../support/world.js';
import {
  CI_SERVICE_ACCOUNT,
  exchangeCertificate,
  exchangeSettings,
  installCiIdentity,
  policy,
  policyReady,
} from '../support/fixtures/exchange-fixtures.js';

const world = useWorld({ namespace: 'exchange-grants' });
const { ns } = world;
const suffix = randomBytes(3).toString('hex');
const OPERATOR_USER = `exchange-operator-${suffix}`;
const CLUSTER_ROLE = `exchange-operator-${suffix}`;
const AUDIENCE = 'guestcluster-grants';
const granted = `granted-${suffix}`;
const invalid = `invalid-${suffix}`;
let issuer: OidcIssuer;
let endpoint: { url: string; certificateAuthority: string };

/**
 * The operator's cluster-wide rights for the exchange as operator/deploy grants them (policies
 * and their status, Events), and the sample's grant in the test namespace: tokens of the CI
 * ServiceAccount only.
 */
function operatorRbac(namespace: string): string {
  return `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: ${CLUSTER_ROLE} }
rules:
  - { apiGroups: [guestcluster.opdev.io], resources: [ciaccesspolicies], verbs: [get, list, watch] }
  - { apiGroups: [guestcluster.opdev.io], resources: [ciaccesspolicies/status], verbs: [update] }
  - { apiGroups: [''], resources: [events], verbs: [create, patch] }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: ${CLUSTER_ROLE} }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${CLUSTER_ROLE} }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: ${OPERATOR_USER} }]
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: other, namespace: ${namespace} }
`;
}

async function grantSample(namespace: string): Promise<void> {
  const text = await readFile(
    path.join(projectRoot(), 'samples', 'ci-token-exchange-grant.yaml'),
    'utf8',
  );
  await kubectl(
    ['apply', '-f', '-'],
    text
      .replaceAll('namespace: ci', `namespace: ${namespace}`)
      .replace(
        /- kind: ServiceAccount\n(\s+)name: guestcluster-operator-controller-manager\n\s+namespace: guestcluster-operator-system/,
        `- apiGroup: rbac.authorization.k8s.io\n$1kind: User\n$1name: ${OPERATOR_USER}`,
      ),
  );
}

beforeAll(async () => {
  issuer = await OidcIssuer.start({ path: '/_services/token' });
  await installCiIdentity(ns);
  await kubectl(['apply', '-f', '-'], operatorRbac(ns.name));
  await grantSample(ns.name);
  const certificate = await exchangeCertificate();
  const operator = await world.startOperator({
    controllers: ['ciaccesspolicy'],
    access: impersonating(ns.kubeConfig, OPERATOR_USER),
    config: { tokenExchange: exchangeSettings(certificate.certDir, [issuer.caPem]) },
  });
  endpoint = {
    url: `https://127.0.0.1:${operator.serverPorts[0]}/v1/token`,
    certificateAuthority: certificate.caPem,
  };
});

afterAll(async () => {
  for (const name of [granted, invalid])
    await ns.api.delete(CI_ACCESS_POLICIES, name).catch(() => undefined);
  await kubectl(['delete', 'clusterrolebinding,clusterrole', CLUSTER_ROLE, '--ignore-not-found']);
  await issuer?.close();
});

describe('the token exchange without a cluster-wide grant', () => {
  beforeAll(async () => {
    const rule = (name: string, serviceAccount: string): CIAccessPolicyRule => ({
      name,
      expression: "claims.repository == 'org/app'",
      namespace: ns.name,
      serviceAccount,
    });
    await ns.api.create(
      CI_ACCESS_POLICIES,
      policy(granted, {
        issuer: issuer.url,
        audience: AUDIENCE,
        rules: [rule('granted', CI_SERVICE_ACCOUNT), rule('ungranted', 'other')],
      }),
    );
  });

  it('says in the policy which rule lacks its grant', async () => {
    const ready = await policyReady(ns, granted, 'GrantMissing');
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(`Rule ungranted`);
    expect(ready.message).toContain(`${ns.name}/other`);
  });

  it('issues where the admin granted it, and refuses, naming the grant, where not', async () => {
    const claims = {
      aud: AUDIENCE,
      sub: 'repo:org/app:ref:refs/heads/main',
      repository: 'org/app',
    };
    const ok = await exchangeIdToken(endpoint, { idToken: await issuer.mint(claims) });
    expect(ok.serviceAccount).toBe(CI_SERVICE_ACCOUNT);
    const refused = await exchangeIdToken(endpoint, {
      idToken: await issuer.mint(claims),
      namespace: ns.name,
      serviceAccount: 'other',
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ExchangeRefusedError);
    expect((refused as ExchangeRefusedError).reason).toBe('GrantMissing');
    expect((refused as ExchangeRefusedError).message).toContain(
      'docs/permissions.md#ci-token-exchange',
    );
  });

  it('names a rule whose CEL does not compile', async () => {
    await ns.api.create(
      CI_ACCESS_POLICIES,
      policy(invalid, {
        issuer: `${issuer.url}/other`,
        audience: AUDIENCE,
        rules: [
          {
            name: 'broken',
            expression: "claims.repository == 'org/app' &&",
            namespace: ns.name,
            serviceAccount: CI_SERVICE_ACCOUNT,
          },
        ],
      }),
    );
    const ready = await policyReady(ns, invalid, 'InvalidRule');
    expect(ready.message).toMatch(/^spec\.rules\[broken\]\.expression does not compile: /);
  });
});

interface CIAccessPolicyRule {
  name: string;
  expression: string;
  namespace: string;
  serviceAccount: string;
}
