import type { ApiClient } from '../../../client/kube/api-client.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { ResourceType } from '../../../client/kube/resource-type.js';
import type { Condition } from './platform-kinds.js';
import { timestamp } from './platform-kinds.js';

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
 * Writes `status` when it differs from the object's, with the object's resourceVersion: a pass
 * that worked from a stale cache fails with a conflict (and is retried) instead of undoing a newer
 * state. It goes through the status subresource, or with the object itself for a kind that has
 * none (`subresource: false`, KubeVirt's VMI). Returns the object as written (or as it was).
 */
export async function writeStatus<T extends KubeObject & { status?: object }>(
  client: ApiClient,
  type: ResourceType,
  object: T,
  status: NonNullable<T['status']>,
  options: { subresource?: boolean } = {},
): Promise<T | undefined> {
  if (stable(object.status ?? {}) === stable(status)) return object;
  try {
    const written = { ...object, status };
    return await (options.subresource === false
      ? client.update(type, written)
      : client.updateStatus(type, written));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
