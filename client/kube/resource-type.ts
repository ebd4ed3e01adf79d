/** Enough about a kind to address its objects without discovery. */
export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

/** A kind whose objects live in a namespace: the client's typed reads name one. */
export type NamespacedType = ResourceType & { readonly namespaced: true };
/** A cluster-scoped kind (Namespace, CRCBundle): its objects have no namespace. */
export type ClusterScopedType = ResourceType & { readonly namespaced: false };

/** A kind; `namespaced` keeps its literal type, so that reads know whether objects have a namespace. */
export function resourceType<N extends boolean = true>(
  apiVersion: string,
  kind: string,
  plural: string,
  namespaced: N = true as N,
): ResourceType & { readonly namespaced: N } {
  return { apiVersion, kind, plural, namespaced };
}

/** The collection URL path, e.g. /apis/apps/v1/namespaces/ns/deployments (all namespaces without one). */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const root = type.apiVersion.includes('/')
    ? `/apis/${type.apiVersion}`
    : `/api/${type.apiVersion}`;
  return type.namespaced && namespace
    ? `${root}/namespaces/${namespace}/${type.plural}`
    : `${root}/${type.plural}`;
}

/** The path of one object, optionally of one of its subresources ("status"). */
export function objectPath(
  type: ResourceType,
  name: string,
  namespace?: string,
  subresource?: string,
): string {
  if (type.namespaced && !namespace)
    throw new Error(`${type.kind} ${name}: a namespace is required`);
  const base = `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
  return subresource ? `${base}/${subresource}` : base;
}

/** A label for logs and metrics: "ConfigMap", "ClusterPool.guestcluster.opdev.io". */
export function typeName(type: ResourceType): string {
  const group = type.apiVersion.includes('/') ? type.apiVersion.split('/')[0] : '';
  return group ? `${type.kind}.${group}` : type.kind;
}
