/** Enough about a kind to address its objects without discovery. */
export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export function resourceType(
  apiVersion: string,
  kind: string,
  plural: string,
  namespaced = true,
): ResourceType {
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
