import type { ClusterAccess } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { EVENTS } from '../../client/api/core-resources.js';
import { waitForList } from '../../dev/support/wait-for.js';

export type CoreEvent = KubeObject & {
  reason: string;
  type: string;
  message: string;
  count?: number;
  involvedObject: { kind: string; name: string; uid?: string };
};

/** Waits for an Event with `reason` about the object `name` (of `kind`) and resolves with it. */
export async function eventFor(
  kubeConfig: ClusterAccess,
  namespace: string,
  involved: { kind: string; name: string },
  reason: string,
): Promise<CoreEvent> {
  const about = (e: CoreEvent): boolean =>
    e.reason === reason &&
    e.involvedObject.kind === involved.kind &&
    e.involvedObject.name === involved.name;
  const events = await waitForList<CoreEvent>(kubeConfig, {
    type: EVENTS,
    namespace,
    until: (items) => items.some(about),
    description: `a ${reason} Event on ${involved.kind} ${involved.name}`,
  });
  return events.find(about)!;
}
