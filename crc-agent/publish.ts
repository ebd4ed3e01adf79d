import { SECRETS } from '../client/api/resources.js';
import type { ApiClient } from '../client/kube/api-client.js';
import { isNotFound, ApiError } from '../client/kube/api-error.js';
import type { KubeObject, OwnerReference } from '../client/kube/objects.js';
import { GUESTCLUSTER_API_VERSION, KINDS } from '../contracts/api.js';
import {
  HANDOFF_KEYS,
  HANDOFF_MANAGED_BY,
  handoffLabels,
  handoffSecretName,
} from '../contracts/handoff.js';
import { LABEL_CLUSTER_INSTANCE, LABEL_MANAGED_BY } from '../contracts/labels.js';

export interface Handoff {
  instanceName: string;
  namespace: string;
  /** Empty for a legacy run. */
  instanceUid: string;
  vmiUid: string;
  kubeconfig: string;
  ocpVersion: string;
  /** The guest's SSH host key, as met on first contact. */
  sshHostKey?: string;
}

export class HandoffConflictError extends Error {
  override name = 'HandoffConflictError';
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

/** A Secret as it travels on the wire. */
export interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/**
 * The Secret the agent creates (docs/reference/agent-protocol.md#handoff-secret); no
 * blockOwnerDeletion, so no extra permission.
 */
export function desiredHandoffSecret(handoff: Handoff): SecretObject {
  const ownerReferences: OwnerReference[] = handoff.instanceUid
    ? [
        {
          apiVersion: GUESTCLUSTER_API_VERSION,
          kind: KINDS.instance,
          name: handoff.instanceName,
          uid: handoff.instanceUid,
          controller: true,
        },
      ]
    : [];
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: handoffSecretName(handoff.instanceName, handoff.vmiUid),
      namespace: handoff.namespace,
      labels: handoffLabels(handoff.instanceName),
      ...(ownerReferences.length ? { ownerReferences } : {}),
    },
    data: {
      [HANDOFF_KEYS.kubeconfig]: b64(handoff.kubeconfig),
      [HANDOFF_KEYS.ocpVersion]: b64(handoff.ocpVersion),
      [HANDOFF_KEYS.vmiUid]: b64(handoff.vmiUid),
      ...(handoff.sshHostKey ? { [HANDOFF_KEYS.sshHostKey]: b64(handoff.sshHostKey) } : {}),
    },
  };
}

/** Throws unless an existing Secret of that name may be updated by this run. */
export function checkExistingHandoff(existing: SecretObject, handoff: Handoff): void {
  const name = `Secret ${handoff.namespace}/${existing.metadata?.name}`;
  const owners = existing.metadata?.ownerReferences ?? [];
  if (handoff.instanceUid) {
    const owned = owners.some(
      (o) =>
        o.controller === true &&
        o.kind === KINDS.instance &&
        o.name === handoff.instanceName &&
        o.uid === handoff.instanceUid,
    );
    if (!owned)
      throw new HandoffConflictError(
        `${name} belongs to another owner (not ClusterInstance ${handoff.instanceName} uid ${handoff.instanceUid})`,
      );
    return;
  }
  const labels = existing.metadata?.labels ?? {};
  if (
    owners.length > 0 ||
    labels[LABEL_MANAGED_BY] !== HANDOFF_MANAGED_BY ||
    labels[LABEL_CLUSTER_INSTANCE] !== handoff.instanceName
  )
    throw new HandoffConflictError(`${name} has no verified agent identity`);
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a ?? {}).length === keys.length && keys.every((key) => a?.[key] === b[key]);
}

/** The existing handoff Secret, or undefined when there is none. */
async function readHandoff(
  api: ApiClient,
  namespace: string,
  name: string,
): Promise<SecretObject | undefined> {
  try {
    return await api.get<SecretObject>(SECRETS, name, namespace);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Read first: the operator makes the (empty) handoff Secret before the agent runs and lets the
 * agent get and update that one Secret only (docs/adr/0010). An existing Secret is verified and
 * its data and type updated when they differ; a missing one is created, for operators that grant
 * create instead.
 */
export async function publishHandoff(
  api: ApiClient,
  handoff: Handoff,
): Promise<'created' | 'updated' | 'unchanged'> {
  const desired = desiredHandoffSecret(handoff);
  const name = desired.metadata!.name!;
  let existing = await readHandoff(api, handoff.namespace, name);
  if (!existing) {
    try {
      await api.create(SECRETS, desired);
      return 'created';
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 409)) throw error;
    }
    existing = await api.get<SecretObject>(SECRETS, name, handoff.namespace);
  }
  checkExistingHandoff(existing, handoff);
  if (existing.type === desired.type && sameData(existing.data, desired.data!)) return 'unchanged';
  await api.update(SECRETS, { ...existing, type: desired.type, data: desired.data });
  return 'updated';
}

/**
 * Puts the guest's SSH host key, met on first contact, into the (still incomplete) handoff Secret
 * at once, so that the operator records it in the instance's status before anything else happens:
 * a later run for this VMI then refuses any other key. The kubeconfig stays empty until the end.
 */
export async function publishHostKey(
  api: ApiClient,
  handoff: Omit<Handoff, 'kubeconfig' | 'ocpVersion'> & { sshHostKey: string },
): Promise<void> {
  const name = handoffSecretName(handoff.instanceName, handoff.vmiUid);
  const existing = await readHandoff(api, handoff.namespace, name);
  if (!existing) throw new Error(`Secret ${handoff.namespace}/${name} does not exist yet`);
  checkExistingHandoff(existing, { ...handoff, kubeconfig: '', ocpVersion: '' });
  const data = {
    ...existing.data,
    [HANDOFF_KEYS.vmiUid]: b64(handoff.vmiUid),
    [HANDOFF_KEYS.sshHostKey]: b64(handoff.sshHostKey),
  };
  if (sameData(existing.data, data)) return;
  await api.update(SECRETS, { ...existing, data });
}
