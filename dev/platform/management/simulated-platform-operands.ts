import { NAMESPACES } from '../../../client/api/resources.js';
import {
  DEPLOYMENTS,
  HYPERCONVERGEDS,
  INGRESS_CONTROLLERS,
  MULTICLUSTERENGINES,
} from '../../../operator/api/platform-resources.js';
import type { ApiClient } from '../../../client/kube/api-client.js';
import { isAlreadyExists, isConflict } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';

type WithStatus = KubeObject & { status?: Record<string, unknown> };

/**
 * The management cluster's platform operands, as their operators leave them once installed: the
 * HyperConverged of OpenShift Virtualization (Available), the MultiClusterEngine with HyperShift
 * enabled, the running HyperShift operator Deployment, and the default IngressController, set
 * up for hosted clusters to admit wildcard Routes. They are singletons of the cluster: made when
 * missing, shared by every test, never removed.
 */
export async function ensurePlatformOperands(client: ApiClient): Promise<void> {
  for (const name of ['openshift-cnv', 'hypershift', 'openshift-ingress-operator'])
    await createIfMissing(client, NAMESPACES, { metadata: { name } });
  await createIfMissing(client, INGRESS_CONTROLLERS, {
    metadata: { name: 'default', namespace: 'openshift-ingress-operator' },
    spec: { routeAdmission: { wildcardPolicy: 'WildcardsAllowed' } },
  } as KubeObject);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const condition = (type: string, status: string): Record<string, string> => ({
    type,
    status,
    reason: 'ReconcileCompleted',
    message: 'Reconcile completed successfully',
    lastTransitionTime: now,
  });
  await ensureWithStatus(
    client,
    HYPERCONVERGEDS,
    {
      metadata: { name: 'kubevirt-hyperconverged', namespace: 'openshift-cnv' },
      spec: {},
    } as KubeObject,
    (generation) => ({
      observedGeneration: generation,
      conditions: [
        condition('Available', 'True'),
        condition('Progressing', 'False'),
        condition('Degraded', 'False'),
      ],
    }),
  );
  await ensureWithStatus(
    client,
    MULTICLUSTERENGINES,
    {
      metadata: { name: 'multiclusterengine' },
      spec: { overrides: { components: [{ name: 'hypershift', enabled: true }] } },
    } as KubeObject,
    () => ({ phase: 'Available' }),
  );
  const labels = { app: 'operator' };
  await ensureWithStatus(
    client,
    DEPLOYMENTS,
    {
      metadata: { name: 'operator', namespace: 'hypershift' },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'operator', image: 'quay.io/hypershift/hypershift:latest' }],
          },
        },
      },
    } as KubeObject,
    (generation) => ({
      observedGeneration: generation,
      replicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
    }),
  );
}

async function createIfMissing(
  client: ApiClient,
  type: ResourceType,
  object: KubeObject,
): Promise<void> {
  try {
    await client.create(type, { apiVersion: type.apiVersion, kind: type.kind, ...object });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** Creates the object when missing and gives it the status its operator would write. */
async function ensureWithStatus(
  client: ApiClient,
  type: ResourceType,
  object: KubeObject,
  status: (generation: number | undefined) => Record<string, unknown>,
): Promise<void> {
  await createIfMissing(client, type, object);
  for (;;) {
    const current = await client.get<WithStatus>(
      type,
      object.metadata!.name!,
      object.metadata!.namespace,
    );
    const wanted = status(current.metadata?.generation);
    const has = current.status ?? {};
    if (
      Object.entries(wanted).every(([key, value]) =>
        key === 'conditions'
          ? !!has.conditions
          : JSON.stringify(has[key]) === JSON.stringify(value),
      )
    )
      return;
    try {
      await client.updateStatus(type, { ...current, status: { ...has, ...wanted } });
      return;
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
}
