import type { ApiClient } from '../../operator/kube/api-client.js';
import { isNotFound } from '../../operator/kube/api-error.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../operator/kube/resource-type.js';
import type { Condition } from './kubevirt-resources.js';
import { timestamp } from './kubevirt-resources.js';

/** JSON with object keys sorted, so that two states compare by content. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The wanted conditions, keeping a condition's lastTransitionTime while its status holds. */
export function withTransitions(
  previous: readonly Condition[] | undefined,
  wanted: Omit<Condition, 'lastTransitionTime'>[],
): Condition[] {
  return wanted.map((condition) => {
    const old = previous?.find((c) => c.type === condition.type);
    return {
      ...condition,
      lastTransitionTime:
        old?.status === condition.status && old.lastTransitionTime
          ? old.lastTransitionTime
          : timestamp(),
    };
  });
}

/**
 * Writes `status` through the status subresource when it differs from the object's, with the
 * object's resourceVersion: a pass that worked from a stale cache fails with a conflict (and is
 * retried) instead of undoing a newer state. Returns the object as written (or as it was).
 */
export async function writeStatus<T extends KubeObject & { status?: object }>(
  client: ApiClient,
  type: ResourceType,
  object: T,
  status: NonNullable<T['status']>,
): Promise<T | undefined> {
  if (stable(object.status ?? {}) === stable(status)) return object;
  try {
    return await client.updateStatus(type, { ...object, status });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
