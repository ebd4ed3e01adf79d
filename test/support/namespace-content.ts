import type { ApiClient, ClusterAccess } from '../../client/kube/api-client.js';
import { isConflict, isNotFound } from '../../client/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { waitFor } from '../../dev/support/wait-for.js';

/*
 * A deleted test namespace's content, deleted by the test itself. The namespace controller would
 * do the same (every namespaced kind that can be listed and deleted, found by discovery) but only
 * after its 5 s grace; a test file that must keep its controllers running until the content that
 * needs them is gone would wait out that grace for nothing. The namespace itself is still left to
 * the namespace controller, with nothing in it that needs a controller any more.
 */

type Content = KubeObject & { status?: { phase?: string } };

interface ResourceList {
  resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[];
}

interface GroupList {
  groups: {
    name: string;
    preferredVersion?: { version: string };
    versions: { version: string }[];
  }[];
}

/** The namespaced kinds the namespace controller deletes: listable, deletable, not subresources. */
async function namespacedKinds(api: ApiClient): Promise<ResourceType[]> {
  const groups = await api.discover<GroupList>('/apis');
  const lists: { apiVersion: string; list: Promise<ResourceList> }[] = [
    { apiVersion: 'v1', list: api.discover<ResourceList>('/api/v1') },
    ...groups.groups.flatMap((group) => {
      const version = group.preferredVersion ?? group.versions[0];
      if (!version) return [];
      const apiVersion = `${group.name}/${version.version}`;
      return [{ apiVersion, list: api.discover<ResourceList>(`/apis/${apiVersion}`) }];
    }),
  ];
  const kinds: ResourceType[] = [];
  for (const { apiVersion, list } of lists) {
    // An aggregated group that does not answer is the namespace controller's problem, not ours.
    const resources = await list.catch(() => undefined);
    for (const r of resources?.resources ?? [])
      if (
        r.namespaced &&
        !r.name.includes('/') &&
        ['list', 'delete', 'watch'].every((verb) => r.verbs.includes(verb))
      )
        kinds.push({ apiVersion, kind: r.kind, plural: r.name, namespaced: true });
  }
  return kinds;
}

/** Whether an object still needs a controller (a finalizer) or a kubelet (a pod that runs). */
function needsController(type: ResourceType, object: Content): boolean {
  if ((object.metadata?.finalizers ?? []).length > 0) return true;
  return type.apiVersion === 'v1' && type.plural === 'pods'
    ? !['Succeeded', 'Failed'].includes(object.status?.phase ?? '')
    : false;
}

/**
 * Deletes everything in `namespace` (which must already be terminating, so that nothing new is
 * admitted into it) and resolves once nothing in it needs a controller: no object with a
 * finalizer, no pod that runs. Every delete names the UID it means.
 */
export async function emptyTerminatingNamespace(
  kubeConfig: ClusterAccess,
  api: ApiClient,
  namespace: string,
  timeoutMs: number,
): Promise<void> {
  const kinds = await namespacedKinds(api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const contents = await Promise.all(
      kinds.map(async (type) => ({
        type,
        items: (await api.list<Content>(type, { namespace }).catch(() => ({ items: [] }))).items,
      })),
    );
    await Promise.all(
      contents.flatMap(({ type, items }) =>
        items
          .filter((object) => !object.metadata?.deletionTimestamp)
          .map((object) =>
            api
              .delete(type, object.metadata!.name!, namespace, {
                uid: object.metadata!.uid,
                propagationPolicy: 'Background',
              })
              .catch((error: unknown) => {
                if (!isNotFound(error) && !isConflict(error)) throw error;
              }),
          ),
      ),
    );
    const held = contents.flatMap(({ type, items }) =>
      items.filter((object) => needsController(type, object)).map((object) => ({ type, object })),
    );
    if (held.length === 0) return;
    const left = deadline - Date.now();
    await Promise.all(
      held.map(({ type, object }) =>
        waitFor<Content>(kubeConfig, {
          type,
          namespace,
          name: object.metadata!.name!,
          until: (now) => now === undefined || now.metadata?.uid !== object.metadata?.uid,
          timeoutMs: Math.max(left, 1),
          description: `${type.kind} ${namespace}/${object.metadata!.name} to be deleted`,
        }),
      ),
    );
  }
}
