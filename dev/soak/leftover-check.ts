import { setTimeout as delay } from 'node:timers/promises';
import { NAMESPACES } from '../../client/api/resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { resourceType } from '../../client/kube/resource-type.js';
import type { KubeObject } from '../../operator/kube/objects.js';

interface ApiResourceList {
  groupVersion: string;
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[];
}

/** Events record what happened; they are no object anyone made and expire on their own. */
const NOT_OBJECTS = new Set(['Event']);
const RELIST_MS = 5000;

/** One object in a namespace, by UID. */
export interface ObjectRef {
  uid: string;
  what: string;
}

/** Every namespaced kind the apiserver serves that can be listed (from discovery, so CRDs too). */
async function namespacedKinds(api: ApiClient): Promise<ResourceType[]> {
  const groups = await api.discover<{ groups: { preferredVersion: { groupVersion: string } }[] }>(
    '/apis',
  );
  const lists = [
    await api.discover<ApiResourceList>('/api/v1'),
    ...(await Promise.all(
      groups.groups.map((g) =>
        api.discover<ApiResourceList>(`/apis/${g.preferredVersion.groupVersion}`),
      ),
    )),
  ];
  return lists.flatMap((list) =>
    list.resources
      .filter(
        (r) =>
          r.namespaced &&
          !r.name.includes('/') &&
          r.verbs.includes('list') &&
          !NOT_OBJECTS.has(r.kind),
      )
      .map((r) => resourceType(list.groupVersion, r.kind, r.name)),
  );
}

/**
 * Every object of every kind in the soak's namespace and in the namespaces made for it since
 * (`<namespace>-…`, the hosted control planes'), and those namespaces themselves.
 */
export async function objectsOf(api: ApiClient, namespace: string): Promise<ObjectRef[]> {
  const namespaces = (await api.list<KubeObject>(NAMESPACES)).items.filter(
    (n) => n.metadata?.name === namespace || n.metadata?.name?.startsWith(`${namespace}-`),
  );
  const refs: ObjectRef[] = namespaces
    .filter((n) => n.metadata?.name !== namespace)
    .map((n) => ({ uid: n.metadata!.uid!, what: `Namespace ${n.metadata!.name}` }));
  const kinds = await namespacedKinds(api);
  for (const ns of namespaces)
    for (const kind of kinds)
      for (const item of (
        await api.list<KubeObject>(kind, { namespace: ns.metadata!.name!, metadataOnly: true })
      ).items)
        refs.push({
          uid: item.metadata!.uid!,
          what: `${kind.kind} ${ns.metadata!.name}/${item.metadata!.name}`,
        });
  return refs;
}

/**
 * The objects not in `baseline` (what the namespace held before the pools were made) that are
 * still there after `deadlineMs`: listed again every few seconds until none is left.
 */
export async function leftovers(
  api: ApiClient,
  namespace: string,
  baseline: readonly ObjectRef[],
  deadlineMs: number,
): Promise<ObjectRef[]> {
  const before = new Set(baseline.map((ref) => ref.uid));
  const until = Date.now() + deadlineMs;
  for (;;) {
    const left = (await objectsOf(api, namespace)).filter((ref) => !before.has(ref.uid));
    if (left.length === 0 || Date.now() >= until) return left;
    await delay(RELIST_MS);
  }
}
