import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { findCondition } from '../../operator/api/conditions.js';
import { CLUSTER_ROLES, ROLE_BINDINGS } from '../../client/api/core-resources.js';
import type {
  ClusterInstance,
  ClusterLease,
  ClusterPool,
  CRCBundle,
} from '../../client/api/resources.js';
import {
  BUNDLES,
  CI_ACCESS_POLICIES,
  INSTANCES,
  LEASES,
  POOLS,
  VERSION_STREAMS,
} from '../../client/api/resources.js';
import {
  ADMISSION_POLICIES,
  admissionPolicies,
} from '../../operator/controllers/admission/admission-policies.js';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { resourceType } from '../../client/kube/resource-type.js';
import { installCrds, readCrdFolder } from '../../dev/control-plane/install-crds.js';
import { projectRoot } from '../../dev/control-plane/project-root.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { useWorld } from '../support/world.js';
import { impersonating } from '../support/tenant.js';
import {
  createPoolInstance,
  hcpPool,
  lease,
  poolInstance,
  settleInstance,
} from '../support/fixtures/pool-fixtures.js';

/**
 * An OperatorHub install, as a tenant meets it: OLM v0 makes, for every CRD the CSV owns, the
 * ClusterRoles of operator-lifecycle-manager's pkg/controller/operators/olm/operatorgroup.go
 * (ensureClusterRolesForCSV, VerbsForSuffix): `<crd>-<version>-admin` with `*`, `-edit` with
 * create, update, patch and delete, and `-view` with get, list and watch on the CRD's plural,
 * labelled to be aggregated into Kubernetes' admin, edit and view (and `-crdview`, get on the
 * CRD). Those widen what a namespace's editors may do with our kinds; the operator's admission
 * policies (which its policy keeper makes, OLM or not) and its own checks keep the bounds.
 * A control plane of the file's own: these roles would widen every other file's tenants too.
 */
const world = useWorld({ namespace: 'olm', enabled: true, controlPlane: 'own' });
const { ns } = world;
const GROUP = 'guestcluster.opdev.io';
const CSV = path.join(
  projectRoot(),
  'bundle',
  'manifests',
  'guestcluster-operator.clusterserviceversion.yaml',
);

interface OwnedCrd {
  name: string;
  version: string;
}

/** The ClusterRoles OLM generates for one owned CRD (see the file's comment). */
function olmRoles({ name, version }: OwnedCrd): KubeObject[] {
  const [plural, group] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
  const verbs: Record<string, string[]> = {
    admin: ['*'],
    edit: ['create', 'update', 'patch', 'delete'],
    view: ['get', 'list', 'watch'],
  };
  const role = (suffix: string, aggregateTo: string, rule: object): KubeObject =>
    ({
      apiVersion: CLUSTER_ROLES.apiVersion,
      kind: CLUSTER_ROLES.kind,
      metadata: {
        name: `${name}-${version}-${suffix}`,
        labels: { [`rbac.authorization.k8s.io/aggregate-to-${aggregateTo}`]: 'true' },
      },
      rules: [rule],
    }) as KubeObject;
  return [
    ...Object.entries(verbs).map(([suffix, v]) =>
      role(suffix, suffix, { verbs: v, apiGroups: [group], resources: [plural] }),
    ),
    role('crdview', 'view', {
      verbs: ['get'],
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: [name],
    }),
  ];
}

const CLUSTER_ROLE_BINDINGS = resourceType(
  'rbac.authorization.k8s.io/v1',
  'ClusterRoleBinding',
  'clusterrolebindings',
  false,
);
const EDITOR = 'olm-namespace-editor';
const CLUSTER_EDITOR = 'olm-cluster-editor';
let editor: ApiClient;
let clusterEditor: ApiClient;

const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  user: string,
): KubeObject =>
  ({
    apiVersion: ROLE_BINDINGS.apiVersion,
    kind,
    metadata: { name, ...(kind === 'RoleBinding' ? { namespace: ns.name } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  }) as KubeObject;

beforeAll(async () => {
  await installCrds(ns.kubeConfig, await readCrdFolder(path.join(projectRoot(), 'crds')));
  const csv = parse(await readFile(CSV, 'utf8')) as {
    spec: { customresourcedefinitions: { owned: OwnedCrd[] } };
  };
  for (const owned of csv.spec.customresourcedefinitions.owned)
    for (const role of olmRoles(owned)) await ns.api.create(CLUSTER_ROLES, role);
  await ns.api.create(ROLE_BINDINGS, binding('RoleBinding', EDITOR, EDITOR));
  await ns.api.create(
    CLUSTER_ROLE_BINDINGS,
    binding('ClusterRoleBinding', CLUSTER_EDITOR, CLUSTER_EDITOR),
  );
  editor = new ApiClient(impersonating(ns.kubeConfig, EDITOR));
  clusterEditor = new ApiClient(impersonating(ns.kubeConfig, CLUSTER_EDITOR));
  // The operator with its policy keeper, as the CSV's Deployment runs it (every controller).
  await world.startOperator({ controllers: ['clusterpool', 'clusterlease', 'admissionpolicy'] });
  // Precondition: OLM's roles do widen edit, once the aggregation controller has folded them in.
  await until(
    () => mayDo(editor, 'create', 'clusterinstances', ns.name),
    'edit to create instances',
  );
  await until(() => mayDo(clusterEditor, 'create', 'crcbundles'), 'edit to create bundles');
}, 120_000);

afterAll(async () => {
  await editor?.close();
  await clusterEditor?.close();
});

const SELF_REVIEWS = resourceType(
  'authorization.k8s.io/v1',
  'SelfSubjectAccessReview',
  'selfsubjectaccessreviews',
  false,
);

/** What this file's control plane's authorizer says of the client's user (not kubectl's plane). */
async function mayDo(
  client: ApiClient,
  verb: string,
  resource: string,
  namespace?: string,
): Promise<boolean> {
  const review = await client.create<KubeObject & { status?: { allowed?: boolean } }>(
    SELF_REVIEWS,
    {
      apiVersion: SELF_REVIEWS.apiVersion,
      kind: SELF_REVIEWS.kind,
      metadata: {},
      spec: { resourceAttributes: { group: GROUP, verb, resource, namespace } },
    } as KubeObject,
  );
  return !!review.status?.allowed;
}

/** Polls what only a request can tell (RBAC aggregation, an admission policy in effect). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whether `request` is refused with a message that contains `words`. */
async function refusedWith(request: () => Promise<unknown>, words: string): Promise<boolean> {
  try {
    await request();
    return false;
  } catch (error) {
    return String(error).includes(words);
  }
}

/** A ClusterInstance made to pass for one of `pool`'s: its name, label, owner and spec. */
function forgedInstance(pool: ClusterPool, name: string): ClusterInstance {
  const made = poolInstance(ns.name, pool.metadata!.name!, name);
  made.metadata!.ownerReferences = [
    {
      apiVersion: POOLS.apiVersion,
      kind: POOLS.kind,
      name: pool.metadata!.name!,
      uid: pool.metadata!.uid!,
      controller: true,
    },
  ];
  return made;
}

describe('a namespace editor under OLM', () => {
  it('may not create a ClusterInstance: the admission policy refuses it', async () => {
    const pool = await ns.api.create<ClusterPool>(POOLS, hcpPool(ns.name, 'door', { maxSize: 1 }));
    await until(
      () =>
        refusedWith(
          () => editor.create(INSTANCES, poolInstance(ns.name, 'door', 'door-7'), { dryRun: true }),
          'only cluster administrators may',
        ),
      'the admin-writes policy to take effect',
    );
    await expect(editor.create(INSTANCES, forgedInstance(pool, 'door-7'))).rejects.toThrow(
      `${EDITOR} may not create clusterinstances: only cluster administrators may (they hold manage on clusterinstances.${GROUP} cluster-wide)`,
    );
  });

  it("may not change a leased instance's spec, nor write its status", async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'leased', { maxSize: 1 }));
    await createPoolInstance(ns.api, poolInstance(ns.name, 'leased', 'leased-0'));
    await settleInstance(ns.api, ns.name, 'leased-0');
    await ns.api.create(LEASES, lease(ns.name, 'job', 'leased'));
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'job',
      until: (l) => l?.status?.phase === 'Bound',
    });
    const patch = { spec: { template: { memory: '512Gi', cores: 128 } } };
    await expect(
      editor.patch(INSTANCES, { name: 'leased-0', namespace: ns.name }, patch),
    ).rejects.toThrow('spec is immutable; a ClusterInstance is provisioned as it was created');
    const instance = await ns.api.get<ClusterInstance>(INSTANCES, 'leased-0', ns.name);
    await expect(
      editor.updateStatus(INSTANCES, {
        ...instance,
        status: { ...instance.status, leaseRef: undefined },
      }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('cannot make the operator count or bind an instance it did not make, even past admission', async () => {
    // An administrator's write stands for any way around the admission policy (removed by
    // hand, an install without it): the operator's own rule still holds.
    const pool = await ns.api.create<ClusterPool>(
      POOLS,
      hcpPool(ns.name, 'forged', { maxSize: 1, warmSpares: 0 }),
    );
    await ns.api.create(INSTANCES, forgedInstance(pool, 'forged-0'));
    // Even Ready with a kubeconfig, as the instance controller would leave it: no authorization.
    const ready = await settleInstance(ns.api, ns.name, 'forged-0');
    await ns.api.updateStatus(INSTANCES, {
      ...ready,
      status: { ...ready.status, provisioning: undefined },
    });
    await ns.api.create(LEASES, lease(ns.name, 'wants-forged', 'forged'));
    // The lease is demand: the pool makes an instance of its own, under the next name.
    const own = await waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'forged-1',
      until: (i) => !!i?.status?.provisioning,
      description: "the pool's own instance, authorized",
    });
    expect(own!.status?.provisioning?.pool).toBe('forged');
    const counted = await waitFor<ClusterPool>(ns.kubeConfig, {
      type: POOLS,
      namespace: ns.name,
      name: 'forged',
      // Its own instance counted, the forged one reported as not its.
      until: (p) =>
        findCondition(p?.status?.conditions, 'NamesAvailable')?.status === 'False' &&
        p?.status?.totalInstances === 1,
    });
    expect(counted!.status).toMatchObject({ totalInstances: 1, availableInstances: 0 });
    expect(findCondition(counted!.status?.conditions, 'NamesAvailable')?.message).toContain(
      "ClusterInstance forged-0 is not this pool's (it was not made by ClusterPool forged)",
    );
    const waiting = await ns.api.get<ClusterLease>(LEASES, 'wants-forged', ns.name);
    expect(waiting.status?.phase).toBe('Pending');
    // Once the pool's own is Ready, the lease takes that one.
    await settleInstance(ns.api, ns.name, 'forged-1');
    const bound = await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'wants-forged',
      until: (l) => l?.status?.phase === 'Bound',
    });
    expect(bound!.status?.instanceRef?.name).toBe('forged-1');
  });
});

describe('a cluster-wide editor under OLM', () => {
  const bundle = (name: string): CRCBundle =>
    ({
      apiVersion: BUNDLES.apiVersion,
      kind: BUNDLES.kind,
      metadata: { name },
      spec: { version: '4.16.0', arch: 'amd64' },
    }) as unknown as CRCBundle;
  const stream = (name: string): KubeObject & { spec: object } => ({
    apiVersion: VERSION_STREAMS.apiVersion,
    kind: VERSION_STREAMS.kind,
    metadata: { name },
    spec: { minor: '4.19', channelGroup: 'stable' },
  });

  it('may not create, change or delete a CRCBundle or a VersionStream', async () => {
    const refusal = (resource: string, verb: string): string =>
      `${CLUSTER_EDITOR} may not ${verb} ${resource}: only cluster administrators may`;
    await expect(clusterEditor.create(BUNDLES, bundle('crc-4.16.0-amd64'))).rejects.toThrow(
      refusal('crcbundles', 'create'),
    );
    await expect(clusterEditor.create(VERSION_STREAMS, stream('ocp-4.19'))).rejects.toThrow(
      refusal('versionstreams', 'create'),
    );
    // An administrator's objects.
    await ns.api.create(BUNDLES, bundle('crc-4.16.0-amd64'));
    await ns.api.create(VERSION_STREAMS, stream('ocp-4.19'));
    await expect(
      clusterEditor.patch(
        BUNDLES,
        { name: 'crc-4.16.0-amd64' },
        { spec: { bundleURL: 'https://evil.example/b.crcbundle' } },
      ),
    ).rejects.toThrow(refusal('crcbundles', 'update'));
    await expect(
      clusterEditor.patch(VERSION_STREAMS, { name: 'ocp-4.19' }, { spec: { pin: '4.19.0' } }),
    ).rejects.toThrow(refusal('versionstreams', 'update'));
    await expect(clusterEditor.delete(BUNDLES, 'crc-4.16.0-amd64')).rejects.toThrow(
      refusal('crcbundles', 'delete'),
    );
    // And no instance in any namespace.
    await expect(
      clusterEditor.create(INSTANCES, poolInstance(ns.name, 'door', 'door-8')),
    ).rejects.toThrow(refusal('clusterinstances', 'create'));
    const kept = await ns.api.get<CRCBundle>(BUNDLES, 'crc-4.16.0-amd64');
    expect(kept.spec).not.toHaveProperty('bundleURL');
  });
});

describe('a cluster-wide editor under OLM, and CI access', () => {
  const policy = (name: string): KubeObject & { spec: object } => ({
    apiVersion: CI_ACCESS_POLICIES.apiVersion,
    kind: CI_ACCESS_POLICIES.kind,
    metadata: { name },
    spec: {
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'guestcluster',
      rules: [
        {
          name: 'any',
          expression: 'true',
          namespace: 'kube-system',
          serviceAccount: 'clusterrole-aggregation-controller',
        },
      ],
    },
  });

  it('may not create, change or delete a CIAccessPolicy (who gets which token)', async () => {
    const refusal = (verb: string): string =>
      `${CLUSTER_EDITOR} may not ${verb} ciaccesspolicies: only cluster administrators may`;
    await expect(clusterEditor.create(CI_ACCESS_POLICIES, policy('mine'))).rejects.toThrow(
      refusal('create'),
    );
    await ns.api.create(CI_ACCESS_POLICIES, policy('admins'));
    await expect(
      clusterEditor.patch(CI_ACCESS_POLICIES, { name: 'admins' }, { spec: { audience: 'x' } }),
    ).rejects.toThrow(refusal('update'));
    await expect(clusterEditor.delete(CI_ACCESS_POLICIES, 'admins')).rejects.toThrow(
      refusal('delete'),
    );
  });
});

describe('holding a lease, at the door', () => {
  const HELD = { 'guestcluster.opdev.io/held': 'true' };

  it('is refused on create, before binding, and a second time', async () => {
    await ns.api.create(POOLS, hcpPool(ns.name, 'holds', { maxSize: 1 }));
    await expect(
      ns.api.create(LEASES, {
        ...lease(ns.name, 'made-held', 'holds'),
        metadata: { name: 'made-held', namespace: ns.name, labels: HELD },
      }),
    ).rejects.toThrow('a new ClusterLease may not be labelled guestcluster.opdev.io/held=true');
    await ns.api.create(LEASES, lease(ns.name, 'debug', 'holds'));
    const label = (labels: object): Promise<unknown> =>
      ns.api.patch(LEASES, { name: 'debug', namespace: ns.name }, { metadata: { labels } });
    await expect(label(HELD)).rejects.toThrow(
      'guestcluster.opdev.io/held=true may be set only on a bound ClusterLease',
    );
    // The waiting lease is demand: the pool makes its instance, which the test settles.
    await waitFor<ClusterInstance>(ns.kubeConfig, {
      type: INSTANCES,
      namespace: ns.name,
      name: 'holds-0',
      until: (i) => !!i?.status?.provisioning,
      description: "the pool's instance for the lease",
    });
    await settleInstance(ns.api, ns.name, 'holds-0');
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'debug',
      until: (l) => l?.status?.phase === 'Bound',
    });
    await label(HELD);
    await waitFor<ClusterLease>(ns.kubeConfig, {
      type: LEASES,
      namespace: ns.name,
      name: 'debug',
      until: (l) => !!l?.status?.heldAt,
      description: 'the hold recorded',
    });
    await label({ 'guestcluster.opdev.io/held': null });
    await expect(label(HELD)).rejects.toThrow('a lease is held once');
  });
});

describe("the operator's policy keeper", () => {
  it('puts a deleted or changed policy back', async () => {
    const [first] = admissionPolicies();
    await ns.api.delete(ADMISSION_POLICIES, first!.name);
    const back = await waitFor<KubeObject>(ns.kubeConfig, {
      type: ADMISSION_POLICIES,
      name: first!.name,
      until: (p) => !!p,
      description: `ValidatingAdmissionPolicy ${first!.name} made again`,
    });
    await ns.api.patch(
      ADMISSION_POLICIES,
      { name: first!.name },
      { spec: { failurePolicy: 'Ignore' } },
    );
    await waitFor<KubeObject & { spec?: { failurePolicy?: string } }>(ns.kubeConfig, {
      type: ADMISSION_POLICIES,
      name: first!.name,
      until: (p) => p?.spec?.failurePolicy === 'Fail' && p.metadata?.uid === back!.metadata?.uid,
      description: `ValidatingAdmissionPolicy ${first!.name} put back`,
    });
  });
});
