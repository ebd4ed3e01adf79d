import { describe, expect, it } from '@jest/globals';
import type {
  KubernetesObject,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Namespace,
} from '@kubernetes/client-node';
import { ApiException, CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { useStandIns } from '../../dev/control-plane/platform-crds/platform-crds.js';
import { useWorld } from '../support/world.js';
import { kubectl } from '../support/kubectl.js';
import { CONFIG_MAPS } from '../../client/api/core-resources.js';
import { CUSTOM_RESOURCE_DEFINITIONS } from '../../operator/api/platform-resources.js';
import { NAMESPACES } from '../../client/api/resources.js';
import { collectionPath, resourceType } from '../../client/kube/resource-type.js';
import { waitFor } from '../../dev/support/wait-for.js';
import { clientNodeConfig, coreApi, objectsApi } from '../support/client-node-clients.js';

const { ns } = useWorld({ namespace: 'control-plane' });

const WIDGETS = resourceType('test.guestcluster.opdev.io/v1', 'Widget', 'widgets');

const widgetCrd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.guestcluster.opdev.io' },
  spec: {
    group: 'test.guestcluster.opdev.io',
    scope: 'Namespaced',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { minSize: { type: 'integer' }, maxSize: { type: 'integer' } },
                x_kubernetes_validations: [
                  {
                    rule: 'self.minSize <= self.maxSize',
                    message: 'spec.minSize must not exceed spec.maxSize',
                  },
                ],
              },
            },
          },
        },
      },
    ],
  },
};

function widget(
  name: string,
  minSize: number,
  maxSize: number,
): KubernetesObject & { spec: object } {
  return {
    apiVersion: WIDGETS.apiVersion,
    kind: WIDGETS.kind,
    metadata: { name, namespace: ns.name },
    spec: { minSize, maxSize },
  };
}

describe('the local control plane', () => {
  it('enforces a CRD CEL rule with the rule message', async () => {
    await objectsApi(ns).create(widgetCrd);
    await waitFor<V1CustomResourceDefinition>(ns.kubeConfig, {
      type: CUSTOM_RESOURCE_DEFINITIONS,
      name: widgetCrd.metadata!.name!,
      until: (crd) =>
        crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ??
        false,
    });

    const rejected = await objectsApi(ns)
      .create(widget('bad', 5, 2))
      .catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(ApiException);
    expect((rejected as ApiException<unknown>).code).toBe(422);
    expect(String((rejected as ApiException<unknown>).body)).toContain(
      'spec.minSize must not exceed spec.maxSize',
    );

    const accepted = await objectsApi(ns).create(widget('good', 1, 2));
    expect(accepted.metadata?.uid).toBeTruthy();
  });

  it('garbage-collects an owner-referenced ConfigMap after its owner is deleted', async () => {
    const owner = await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'owner' } },
    });
    await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: {
        metadata: {
          name: 'child',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! },
          ],
        },
      },
    });
    await coreApi(ns).deleteNamespacedConfigMap({
      name: 'owner',
      namespace: ns.name,
      propagationPolicy: 'Background',
    });

    const child = await waitFor<V1ConfigMap>(ns.kubeConfig, {
      type: CONFIG_MAPS,
      namespace: ns.name,
      name: 'child',
      until: (object) => object === undefined,
      description: 'the garbage collector to delete ConfigMap child',
    });
    expect(child).toBeUndefined();
  });

  it('completes a namespace deletion, contents included', async () => {
    const name = `${ns.name}-doomed`;
    await coreApi(ns).createNamespace({ body: { metadata: { name } } });
    await coreApi(ns).createNamespacedConfigMap({
      namespace: name,
      body: { metadata: { name: 'content' }, data: { a: 'b' } },
    });
    await coreApi(ns).deleteNamespace({ name });

    const gone = await waitFor<V1Namespace>(ns.kubeConfig, {
      type: NAMESPACES,
      name,
      until: (object) => object === undefined,
      description: `namespace ${name} to be deleted`,
    });
    expect(gone).toBeUndefined();
  });

  it('delivers an update to a watch', async () => {
    const created = await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'watched' }, data: { value: 'one' } },
    });
    let onUpdate: (object: V1ConfigMap) => void = () => undefined;
    const updated = new Promise<V1ConfigMap>((resolve) => (onUpdate = resolve));
    const abort = await new Watch(clientNodeConfig(ns.kubeConfig)).watch(
      collectionPath(CONFIG_MAPS, ns.name),
      {
        fieldSelector: 'metadata.name=watched',
        resourceVersion: created.metadata!.resourceVersion,
      },
      (phase: string, object: V1ConfigMap) => {
        if (phase === 'MODIFIED') onUpdate(object);
      },
      () => undefined,
    );
    await coreApi(ns).patchNamespacedConfigMap({
      name: 'watched',
      namespace: ns.name,
      body: [{ op: 'replace', path: '/data/value', value: 'two' }],
    });
    const object = await updated;
    abort.abort();
    expect(object.data).toEqual({ value: 'two' });
  });

  it('authorizes with RBAC: a service account without a role is refused', async () => {
    await coreApi(ns).createNamespacedServiceAccount({
      namespace: ns.name,
      body: { metadata: { name: 'nobody' } },
    });
    const token = await coreApi(ns).createNamespacedServiceAccountToken({
      name: 'nobody',
      namespace: ns.name,
      body: { spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600 } },
    });
    const cluster = clientNodeConfig(ns.kubeConfig).getCurrentCluster()!;
    const asNobody = new KubeConfig();
    asNobody.loadFromOptions({
      clusters: [cluster],
      users: [{ name: 'nobody', token: token.status!.token }],
      contexts: [{ name: 'nobody', cluster: cluster.name, user: 'nobody' }],
      currentContext: 'nobody',
    });

    const refused = await asNobody
      .makeApiClient(CoreV1Api)
      .listNamespacedSecret({ namespace: ns.name })
      .catch((error: unknown) => error);
    expect((refused as ApiException<unknown>).code).toBe(403);
    expect(String((refused as ApiException<unknown>).body)).toContain(
      `system:serviceaccount:${ns.name}:nobody`,
    );
  });

  it("serves KubeVirt's VM with a status subresource and its VMI without one", async () => {
    const template = { spec: { domain: { devices: {} } } };
    await kubectl(
      ['apply', '-n', ns.name, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'vm' },
        spec: { runStrategy: 'Always', template },
        status: { printableStatus: 'Ignored' },
      }),
    );
    // Writes to the main resource drop status; the status subresource sets it, as on OpenShift.
    const before = await kubectl(['get', '-n', ns.name, 'vm', 'vm', '-o', 'jsonpath={.status}']);
    expect(before.stdout).toBe('');
    await kubectl([
      'patch',
      '-n',
      ns.name,
      'vm',
      'vm',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"printableStatus":"Running"}}',
    ]);
    const table = await kubectl([
      'get',
      '-n',
      ns.name,
      'vm',
      'vm',
      '--no-headers',
      '-o',
      'custom-columns=STATUS:.status.printableStatus',
    ]);
    expect(table.stdout.trim()).toBe('Running');

    // virt-controller and virt-handler write a VMI's status with the VMI itself.
    await kubectl(
      ['create', '-n', ns.name, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'vmi' },
        spec: template.spec,
        status: { phase: 'Pending' },
      }),
    );
    const vmi = await kubectl([
      'get',
      '-n',
      ns.name,
      'vmi',
      'vmi',
      '-o',
      'jsonpath={.status.phase}',
    ]);
    expect(vmi.stdout).toBe('Pending');
    const subresource = await kubectl([
      'patch',
      '-n',
      ns.name,
      'vmi',
      'vmi',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"phase":"Running"}}',
    ]).catch((error: unknown) => error);
    expect(String(subresource)).toContain('NotFound');
  });

  it('refuses platform objects the real schemas refuse, naming the field', async () => {
    const refused = await kubectl(
      ['create', '-n', ns.name, '-f', '-'],
      JSON.stringify({
        apiVersion: 'hypershift.openshift.io/v1beta1',
        kind: 'NodePool',
        metadata: { name: 'np' },
        spec: {
          clusterName: 'hc',
          release: { image: 'quay.io/openshift-release-dev/ocp-release:4.19.0-x86_64' },
          platform: { type: 'KubeVirt', kubevirt: {} },
          management: { upgradeType: 'Sometimes' },
        },
      }),
    ).catch((error: unknown) => error);
    expect(String(refused)).toContain(
      'spec.management.upgradeType: Unsupported value: "Sometimes"',
    );
    // The open stand-ins of the proxy-served kinds validate nothing.
    if (useStandIns()) return;
    const dv = await kubectl(
      ['create', '-n', ns.name, '-f', '-'],
      JSON.stringify({
        apiVersion: 'cdi.kubevirt.io/v1beta1',
        kind: 'DataVolume',
        metadata: { name: 'dv' },
        spec: { source: { http: {} }, storage: {} },
      }),
    ).catch((error: unknown) => error);
    expect(String(dv)).toContain('spec.source.http.url: Required value');
  });

  it("enforces owner-reference permissions as OpenShift's apiserver does", async () => {
    const owner = await coreApi(ns).createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'guarded-owner' } },
    });
    await coreApi(ns).createNamespacedServiceAccount({
      namespace: ns.name,
      body: { metadata: { name: 'writer' } },
    });
    await kubectl([
      'create',
      'role',
      'writer',
      '-n',
      ns.name,
      '--verb=create',
      '--resource=configmaps',
    ]);
    await kubectl([
      'create',
      'rolebinding',
      'writer',
      '-n',
      ns.name,
      '--role=writer',
      `--serviceaccount=${ns.name}:writer`,
    ]);
    const child = (name: string, blockOwnerDeletion: boolean): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'guarded-owner',
              uid: owner.metadata!.uid!,
              blockOwnerDeletion,
            },
          ],
        },
      });
    const asWriter = [
      '--as',
      `system:serviceaccount:${ns.name}:writer`,
      'create',
      '-n',
      ns.name,
      '-f',
      '-',
    ];
    const blocked = await kubectl(asWriter, child('blocking', true)).catch((e: unknown) => e);
    expect(String(blocked)).toContain(
      "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
    );
    const plain = await kubectl(asWriter, child('plain', false));
    expect(plain.stdout).toContain('configmap/plain created');
  });

  it('answers kubectl from the built binary', async () => {
    const { stdout } = await kubectl([
      'get',
      'namespace',
      ns.name,
      '-o',
      'jsonpath={.status.phase}',
    ]);
    expect(stdout).toBe('Active');
    const version = await kubectl(['version', '-o', 'json']);
    expect(JSON.parse(version.stdout).serverVersion.gitVersion).toMatch(/^v1\.3[67]\./);
  });
});
