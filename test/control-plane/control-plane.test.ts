import { describe, expect, it } from '@jest/globals';
import type {
  KubernetesObject,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Namespace,
} from '@kubernetes/client-node';
import { ApiException, CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { useTestNamespace } from '../support/cluster.js';
import { kubectl } from '../support/kubectl.js';
import {
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  NAMESPACES,
  collectionPath,
  resourceType,
} from '../support/resource-type.js';
import { waitFor } from '../support/wait-for.js';

const ns = useTestNamespace('control-plane');

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
    await ns.objects.create(widgetCrd);
    await waitFor<V1CustomResourceDefinition>(ns.kubeConfig, {
      type: CUSTOM_RESOURCE_DEFINITIONS,
      name: widgetCrd.metadata!.name!,
      until: (crd) =>
        crd?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ??
        false,
    });

    const rejected = await ns.objects.create(widget('bad', 5, 2)).catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(ApiException);
    expect((rejected as ApiException<unknown>).code).toBe(422);
    expect(String((rejected as ApiException<unknown>).body)).toContain(
      'spec.minSize must not exceed spec.maxSize',
    );

    const accepted = await ns.objects.create(widget('good', 1, 2));
    expect(accepted.metadata?.uid).toBeTruthy();
  });

  it('garbage-collects an owner-referenced ConfigMap after its owner is deleted', async () => {
    const owner = await ns.core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'owner' } },
    });
    await ns.core.createNamespacedConfigMap({
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
    await ns.core.deleteNamespacedConfigMap({
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
    await ns.core.createNamespace({ body: { metadata: { name } } });
    await ns.core.createNamespacedConfigMap({
      namespace: name,
      body: { metadata: { name: 'content' }, data: { a: 'b' } },
    });
    await ns.core.deleteNamespace({ name });

    const gone = await waitFor<V1Namespace>(ns.kubeConfig, {
      type: NAMESPACES,
      name,
      until: (object) => object === undefined,
      description: `namespace ${name} to be deleted`,
    });
    expect(gone).toBeUndefined();
  });

  it('delivers an update to a watch', async () => {
    const created = await ns.core.createNamespacedConfigMap({
      namespace: ns.name,
      body: { metadata: { name: 'watched' }, data: { value: 'one' } },
    });
    let onUpdate: (object: V1ConfigMap) => void = () => undefined;
    const updated = new Promise<V1ConfigMap>((resolve) => (onUpdate = resolve));
    const abort = await new Watch(ns.kubeConfig).watch(
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
    await ns.core.patchNamespacedConfigMap({
      name: 'watched',
      namespace: ns.name,
      body: [{ op: 'replace', path: '/data/value', value: 'two' }],
    });
    const object = await updated;
    abort.abort();
    expect(object.data).toEqual({ value: 'two' });
  });

  it('authorizes with RBAC: a service account without a role is refused', async () => {
    await ns.core.createNamespacedServiceAccount({
      namespace: ns.name,
      body: { metadata: { name: 'nobody' } },
    });
    const token = await ns.core.createNamespacedServiceAccountToken({
      name: 'nobody',
      namespace: ns.name,
      body: { spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600 } },
    });
    const cluster = ns.kubeConfig.getCurrentCluster()!;
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

  it('serves the third-party stand-in kinds with a status subresource', async () => {
    await kubectl(
      ['apply', '-n', ns.name, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'vm' },
        spec: { runStrategy: 'Always' },
        status: { printableStatus: 'Ignored' },
      }),
    );
    // Writes to the main resource drop status; the status subresource sets it, as on OpenShift.
    const before = await kubectl([
      'get',
      '-n',
      ns.name,
      'virtualmachine',
      'vm',
      '-o',
      'jsonpath={.status}',
    ]);
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
