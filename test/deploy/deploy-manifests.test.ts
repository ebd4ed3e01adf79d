import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { parseAllDocuments } from 'yaml';
import { OPERATOR_NODE_OPTIONS } from '../../operator/cli/node-options.js';
import { loadOperatorConfig } from '../../operator/config.js';
import type { ClusterLease } from '../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../client/api/resources.js';
import type { ConfigMap } from '../../operator/kube/workloads.js';
import { CONFIG_MAPS } from '../../client/api/core-resources.js';
import {
  COUNTED_KEY,
  historyConfigMapName,
} from '../../operator/controllers/clusterpool/demand-history-store.js';
import { clusterAccess } from '../../client/kube/cluster-access.js';
import type { Logger } from '../../operator/runtime/logger.js';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import { createPullSecret } from '../support/fixtures/hcp-fixtures.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import {
  hcpPool,
  lease,
  poolInstance,
  settleInstance,
  createPoolInstance,
} from '../support/fixtures/pool-fixtures.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { testEnv } from '../support/test-env.js';
import { waitFor } from '../../dev/support/wait-for.js';
import {
  documentedPermissions,
  grantedPermissions,
  requestedPermissions,
} from './permission-audit.js';
import { coreApi } from '../support/client-node-clients.js';

const world = useWorld({ namespace: 'deploy', enabled: true });
const { ns } = world;
const DEPLOY_DIR = path.join(projectRoot(), 'operator', 'deploy');
const OPERATOR_NAMESPACE = 'guestcluster-operator-system';
const OPERATOR_ACCOUNT = 'guestcluster-operator-controller-manager';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  rules?: Parameters<typeof grantedPermissions>[0];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

interface Container {
  args: string[];
  env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  securityContext: Record<string, unknown>;
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

/** A memory quantity of the Deployment in MiB (the manifests use Mi and Gi). */
function mebibytes(quantity: string | undefined): number {
  const [, value, unit] = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '') ?? [];
  return Number(value) * (unit === 'Gi' ? 1024 : 1);
}

async function rendered(): Promise<Manifest[]> {
  const { stdout } = await kubectl(['kustomize', DEPLOY_DIR]);
  return parseAllDocuments(stdout).map((document) => document.toJS() as Manifest);
}

let manifests: Manifest[];
beforeAll(async () => {
  manifests = await rendered();
  // The namespace exists for real, so that a server-side dry run can check everything in it.
  await kubectl(['apply', '-f', path.join(DEPLOY_DIR, 'namespace.yaml')]);
});

describe('the deploy manifests (operator/deploy)', () => {
  it('are accepted by the apiserver as a whole (server-side dry run)', async () => {
    const { stdout } = await kubectl(['apply', '--dry-run=server', '-k', DEPLOY_DIR]);
    expect(stdout.trim().split('\n')).toHaveLength(manifests.length);
  });

  it('hold the six CRDs and put everything else in the operator namespace', () => {
    expect(
      manifests
        .filter((m) => m.kind === 'CustomResourceDefinition')
        .map((m) => m.metadata.name)
        .sort(),
    ).toEqual([
      'ciaccesspolicies.guestcluster.opdev.io',
      'clusterinstances.guestcluster.opdev.io',
      'clusterleases.guestcluster.opdev.io',
      'clusterpools.guestcluster.opdev.io',
      'crcbundles.guestcluster.opdev.io',
      'versionstreams.guestcluster.opdev.io',
    ]);
    const clusterScoped = new Set([
      'CustomResourceDefinition',
      'Namespace',
      'ClusterRole',
      'ClusterRoleBinding',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    for (const manifest of manifests.filter((m) => !clusterScoped.has(m.kind)))
      expect(manifest.metadata.namespace).toBe(OPERATOR_NAMESPACE);
  });

  it('run the operator restricted, with leader election and the settings it needs', () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment')!;
    const pod = (deployment.spec!.template as { spec: Record<string, unknown> }).spec;
    expect(pod.serviceAccountName).toBe(OPERATOR_ACCOUNT);
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const [container] = pod.containers as Container[];
    expect(container!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container!.args).toEqual(expect.arrayContaining(['operator', '--leader-elect']));
    const env = new Map(container!.env.map((e) => [e.name, e]));
    expect(env.get('OPERATOR_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe(
      'metadata.namespace',
    );
    expect(env.get('NODE_OPTIONS')?.value).toBe(OPERATOR_NODE_OPTIONS);
    expect(env.get('CRC_AGENT_IMAGE')?.value).toMatch(/crc-agent/);
    for (const [name, kind] of [['CRC_AGENT_CLUSTER_ROLE', 'ClusterRole']] as const)
      expect(
        manifests.some((m) => m.kind === kind && m.metadata.name === env.get(name)?.value),
      ).toBe(true);
    // The admin bounds on CRC bundles, as the Deployment sets them: any version, 2 downloads
    // and 1 build at once.
    expect(
      loadOperatorConfig(
        {},
        {
          ALLOWED_CRC_VERSIONS: env.get('ALLOWED_CRC_VERSIONS')?.value,
          MAX_PREPARING_BUNDLES: env.get('MAX_PREPARING_BUNDLES')?.value,
          MAX_BUILDING_BUNDLES: env.get('MAX_BUILDING_BUNDLES')?.value,
        },
        () => '',
      ).crc,
    ).toEqual({ allowedVersions: undefined, maxPreparing: 2, maxBuilding: 1 });
    expect(container!.livenessProbe).toBeDefined();
    expect(container!.readinessProbe).toBeDefined();
    expect(container!.resources?.requests).toBeDefined();
  });

  it("keep the operator's heap limit within half its memory limit, and request what it holds", () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment')!;
    const pod = (deployment.spec!.template as { spec: { containers: Container[] } }).spec;
    const { resources } = pod.containers[0]!;
    const oldSpace = Number(/--max-old-space-size=(\d+)/.exec(OPERATOR_NODE_OPTIONS)?.[1]);
    // The rest of the process (young generation, code, Buffers, malloc) has the other half
    // (docs/operations/memory.md).
    expect(oldSpace).toBeGreaterThan(0);
    expect(oldSpace).toBeLessThanOrEqual(mebibytes(resources?.limits?.memory) / 2);
    // What the operator holds with 10,000 instances and 10,000 leases (`npm run bench`).
    expect(mebibytes(resources?.requests?.memory)).toBeGreaterThanOrEqual(256);
  });

  it('grant exactly what docs/permissions.md lists, row for row', async () => {
    const roles: Record<string, string> = {
      manager: 'guestcluster-operator-manager-role',
      'leader-election': 'guestcluster-operator-leader-election-role',
      'cdi-clone-source': 'guestcluster-operator-manager-cdi-clone-source',
      'bundle-build': 'guestcluster-operator-bundle-build-role',
      'crc-agent': 'guestcluster-operator-crc-agent-instance-role',
      'tenant-edit': 'guestcluster-operator-tenant-edit',
      'tenant-view': 'guestcluster-operator-tenant-view',
    };
    const documented = documentedPermissions(
      await readFile(path.join(projectRoot(), 'docs', 'permissions.md'), 'utf8'),
    );
    const granted = manifests
      .filter((m) => m.kind === 'Role' || m.kind === 'ClusterRole')
      .flatMap((m) => {
        const role = Object.entries(roles).find(([, name]) => name === m.metadata.name)?.[0];
        return [...grantedPermissions(m.rules ?? [])].map((p) => `${role ?? m.metadata.name} ${p}`);
      });
    expect([...documented].sort()).toEqual(granted.sort());
  });

  it("bind the manager and leader-election roles to the operator's ServiceAccount", () => {
    const bound = manifests
      .filter((m) =>
        m.subjects?.some(
          (s) =>
            s.kind === 'ServiceAccount' &&
            s.name === OPERATOR_ACCOUNT &&
            s.namespace === OPERATOR_NAMESPACE,
        ),
      )
      .map((m) => `${m.kind}/${m.roleRef!.kind}/${m.roleRef!.name}`);
    expect(bound).toEqual(
      expect.arrayContaining([
        'ClusterRoleBinding/ClusterRole/guestcluster-operator-manager-role',
        'RoleBinding/Role/guestcluster-operator-leader-election-role',
      ]),
    );
  });
});

/**
 * Granted permissions that the operator needs but that the flows of this test (pool and lease,
 * hcp) do not (or not always) ask for.
 */
const NOT_REQUESTED_HERE = [
  // The token exchange and the policy controller (test/identity/token-exchange.test.ts).
  'guestcluster.opdev.io/ciaccesspolicies:get',
  'guestcluster.opdev.io/ciaccesspolicies:list',
  'guestcluster.opdev.io/ciaccesspolicies:watch',
  'guestcluster.opdev.io/ciaccesspolicies/status:update',
  // Asked of the operator by the admission policy guestcluster-admin-writes (the authorizer's
  // check on its creates), not a request of its own.
  'guestcluster.opdev.io/clusterinstances:manage',
  'guestcluster.opdev.io/crcbundles:manage',
  // The run's set-up made the admission policies as the keeper does: the keeper finds them as
  // they must be, and writes nothing (test/isolation/olm-install.test.ts sees it put them back).
  'admissionregistration.k8s.io/validatingadmissionpolicies:create',
  'admissionregistration.k8s.io/validatingadmissionpolicies:update',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings:create',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings:update',
  // Checked by OpenShift's admission (owner references with blockOwnerDeletion, Route hosts),
  // no request of their own.
  'guestcluster.opdev.io/clusterpools/finalizers:update',
  'guestcluster.opdev.io/clusterleases/finalizers:update',
  'guestcluster.opdev.io/clusterinstances/finalizers:update',
  'guestcluster.opdev.io/crcbundles/finalizers:update',
  'route.openshift.io/routes/custom-host:create',
  // A failed instance's diagnostics bundle and the pruning of a pool's oldest ones
  // (test/crc/crc-failures.test.ts); no instance fails here.
  'core/configmaps:create',
  'core/configmaps:delete',
  // An event repeated on one object; deletion at the TTL (test/operator/lease-ttl.test.ts).
  'core/events:patch',
  'guestcluster.opdev.io/clusterleases:delete',
  // Live reads when the cache lags, and updates of objects that exist already (a Secret copy, a
  // HostedCluster or NodePool that drifted); pods left behind by a hosted control plane.
  'guestcluster.opdev.io/clusterleases:get',
  'guestcluster.opdev.io/clusterpools:get',
  'guestcluster.opdev.io/clusterinstances:get',
  'core/namespaces:get',
  'core/secrets:update',
  'hypershift.openshift.io/nodepools:update',
  'hypershift.openshift.io/nodepools:delete',
  'core/pods:delete',
  // A pool with crcVersion and the CRCBundle controller: not in this test's flows. The local
  // environment runs them with this identity (test/local/local-environment.test.ts fails on a
  // refused request there).
  'guestcluster.opdev.io/crcbundles:create',
  // A bundle build: its finalizer, its DNS Deployment's cache.
  'guestcluster.opdev.io/crcbundles:update',
  'apps/deployments:list',
  'apps/deployments:watch',
  'guestcluster.opdev.io/crcbundles:get',
  'guestcluster.opdev.io/crcbundles/status:update',
  // The VersionStream controller: not in this test's flows (test/operator/version-streams.test.ts
  // runs it; the local environment runs it with this identity, as above).
  'guestcluster.opdev.io/versionstreams:get',
  'guestcluster.opdev.io/versionstreams:list',
  'guestcluster.opdev.io/versionstreams:watch',
  'guestcluster.opdev.io/versionstreams/status:update',
  'core/persistentvolumeclaims:get',
  'core/persistentvolumeclaims:create',
  'core/persistentvolumeclaims:delete',
  'batch/jobs:get',
  'batch/jobs:create',
  'batch/jobs:delete',
  'core/configmaps:list',
  'core/configmaps:watch',
  // crc instances (the VM, its disk, the API Service, the crc-agent's identity and Job, agent
  // diagnostics): not in this test's flows, but for their caches (list, watch); the local
  // environment runs them with this identity, as above.
  'kubevirt.io/virtualmachines:get',
  'kubevirt.io/virtualmachines:create',
  'kubevirt.io/virtualmachines:update',
  'kubevirt.io/virtualmachines:delete',
  'kubevirt.io/virtualmachineinstances:get',
  'kubevirt.io/virtualmachineinstances:delete',
  'cdi.kubevirt.io/datavolumes:get',
  'cdi.kubevirt.io/datavolumes:create',
  'cdi.kubevirt.io/datavolumes:delete',
  'core/services:get',
  'core/services:create',
  'core/services:delete',
  'networking.k8s.io/networkpolicies:get',
  'networking.k8s.io/networkpolicies:create',
  'networking.k8s.io/networkpolicies:update',
  'core/serviceaccounts:get',
  'core/serviceaccounts:create',
  'core/serviceaccounts:delete',
  'rbac.authorization.k8s.io/clusterroles:get',
  'rbac.authorization.k8s.io/clusterroles:create',
  'rbac.authorization.k8s.io/roles:get',
  'rbac.authorization.k8s.io/roles:create',
  'rbac.authorization.k8s.io/roles:update',
  'rbac.authorization.k8s.io/roles:delete',
  'rbac.authorization.k8s.io/rolebindings:get',
  'rbac.authorization.k8s.io/rolebindings:list',
  'rbac.authorization.k8s.io/rolebindings:create',
  'rbac.authorization.k8s.io/rolebindings:update',
  'rbac.authorization.k8s.io/rolebindings:delete',
  'core/events:list',
  // Secure metrics: asked per scrape (test/operator/operator-metrics.test.ts).
  'authentication.k8s.io/tokenreviews:create',
  'authorization.k8s.io/subjectaccessreviews:create',
].sort();

/** Log lines of the manager, to look for refused requests. */
function collectingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done): void {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

describe('the operator with its own ServiceAccount', () => {
  let access: ClusterAccess;
  const logLines: string[] = [];
  beforeAll(async () => {
    // The role and its binding to the operator's account, as `kubectl apply -k` installs them.
    for (const file of ['service-accounts.yaml', 'manager-role.yaml'])
      await kubectl(['apply', '-f', path.join(DEPLOY_DIR, file)]);
    const token = await coreApi(ns).createNamespacedServiceAccountToken({
      name: OPERATOR_ACCOUNT,
      namespace: OPERATOR_NAMESPACE,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const cluster = ns.kubeConfig.getCurrentCluster();
    access = clusterAccess({
      server: cluster.server,
      ca: Buffer.from(cluster.caData!, 'base64').toString(),
      token: token.status!.token!,
      insecureSkipTlsVerify: false,
    });
  });
  afterAll(async () => {
    // Stopped before its permissions go: it would only meet refusals from then on.
    await world.stopOperators();
    await kubectl(['delete', 'clusterrolebinding', 'guestcluster-operator-manager-rolebinding']);
  });

  it('runs the pool and lease flow without a refused request', async () => {
    const manager = await world.startOperator({
      access,
      logger: collectingLogger(logLines),
      controllers: ['clusterpool', 'clusterlease', 'admissionpolicy'],
    });

    // Autoscaled, so its demand history is read, created and updated (the lease's arrival).
    await ns.api.create(
      POOLS,
      hcpPool(ns.name, 'rbac', { maxSize: 1, autoscaling: { maxSpares: 1 } }),
    );
    await createPoolInstance(ns.api, poolInstance(ns.name, 'rbac', 'rbac-0'));
    await settleInstance(ns.api, ns.name, 'rbac-0');
    // The history exists before the lease arrives, so that counting it is an update: a pool pass
    // that came late would otherwise create the history with the lease already in it.
    await waitFor<ConfigMap>(ns.kubeConfig, {
      type: CONFIG_MAPS,
      namespace: ns.name,
      name: historyConfigMapName('rbac'),
      until: (cm) => cm !== undefined,
      description: "the pool's demand history to be stored",
    });
    const created = await ns.api.create(LEASES, lease(ns.name, 'job', 'rbac'));
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job',
      until: (l) => l?.status?.phase === 'Bound',
    });
    // The lease's arrival is in the stored history (an update) before the lease goes.
    await waitFor<ConfigMap>(ns.kubeConfig, {
      type: CONFIG_MAPS,
      namespace: ns.name,
      name: historyConfigMapName('rbac'),
      until: (cm) => cm?.data?.[COUNTED_KEY]?.includes(created.metadata!.uid!) ?? false,
      description: "the pool's demand history to count the lease",
    });
    await ns.api.delete(LEASES, 'job', ns.name);
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'rbac-0',
      until: (i) => i === undefined,
      description: 'the released instance to be deleted',
    });
    await ns.api.delete(POOLS, 'rbac', ns.name);
    await manager.stop();
    expect(logLines.filter((line) => /forbidden/i.test(line))).toEqual([]);
  });

  it('runs the hcp flow (simulated HyperShift) without a refused request', async () => {
    await createPullSecret(ns.api, ns.name);
    await world.startPlatform({ hcp: true });
    await world.startOperator({ access, logger: collectingLogger(logLines) });
    await ns.api.create(POOLS, hcpPool(ns.name, 'hcp', { maxSize: 1 }));
    await ns.api.create(LEASES, lease(ns.name, 'hcp-job', 'hcp'));
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'hcp-job',
      until: (l) => l?.status?.phase === 'Bound',
      timeoutMs: 120_000,
    });
    await ns.api.delete(POOLS, 'hcp', ns.name);
    await ns.api.delete(LEASES, 'hcp-job', ns.name);
    await waitFor(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: bound!.status!.instanceRef!.name!,
      until: (i) => i === undefined,
      description: 'the released hcp instance to be torn down',
      timeoutMs: 120_000,
    });
    expect(logLines.filter((line) => /forbidden/i.test(line))).toEqual([]);
  });

  it('holds no permission it does not use, but for the documented ones', async () => {
    const role = manifests.find(
      (m) => m.kind === 'ClusterRole' && m.metadata.name === 'guestcluster-operator-manager-role',
    );
    const used = await requestedPermissions(
      testEnv('auditLog'),
      `system:serviceaccount:${OPERATOR_NAMESPACE}:${OPERATOR_ACCOUNT}`,
    );
    const granted = grantedPermissions(role!.rules!);
    expect([...granted].filter((p) => !used.has(p) && !NOT_REQUESTED_HERE.includes(p))).toEqual([]);
    // The exceptions stay true to the role.
    expect(NOT_REQUESTED_HERE.filter((p) => !granted.has(p))).toEqual([]);
  });
});
