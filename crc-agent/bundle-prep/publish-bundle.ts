import { SECRETS } from '../../client/api/resources.js';
import { CONFIG_MAPS } from '../../client/api/core-resources.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import { ApiError } from '../../client/kube/api-error.js';
import type {
  Desired,
  DesiredMeta,
  KubeObject,
  ObjectMeta,
  OwnerReference,
} from '../../client/kube/objects.js';
import type { NamespacedType } from '../../client/kube/resource-type.js';
import { KINDS } from '../../contracts/api.js';
import {
  bundleLabels,
  bundleOwnerReference,
  METADATA_KEYS,
  SSH_KEY_DATA_KEY,
} from '../../contracts/bundle-prep.js';

export interface BundleOutputs {
  namespace: string;
  bundleName: string;
  bundleUid: string;
  sshSecretName: string;
  metadataConfigMapName: string;
  sshPrivateKey: string;
  ocpVersion: string;
  archiveSha256: string;
  diskSha256: string;
  diskVirtualSizeBytes: number;
}

export type PublishOutcome = 'created' | 'updated' | 'unchanged';

export class BundleOwnerConflictError extends Error {
  override name = 'BundleOwnerConflictError';
}

/** A Secret or ConfigMap as it travels on the wire. */
export interface DataObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

function metadata(outputs: BundleOutputs, name: string): DesiredMeta {
  return {
    name,
    namespace: outputs.namespace,
    labels: bundleLabels(outputs.bundleName),
    ownerReferences: [bundleOwnerReference(outputs.bundleName, outputs.bundleUid)],
  };
}

/** `<bundle>-ssh-key`: the bundle's private key under `id_ecdsa`, owned by the CRCBundle. */
export function desiredSshKeySecret(outputs: BundleOutputs): Desired<DataObject> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: metadata(outputs, outputs.sshSecretName),
    data: { [SSH_KEY_DATA_KEY]: Buffer.from(outputs.sshPrivateKey).toString('base64') },
  };
}

/** `<bundle>-metadata`: what the controller copies into the CRCBundle status. */
export function desiredMetadataConfigMap(outputs: BundleOutputs): Desired<DataObject> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(outputs, outputs.metadataConfigMapName),
    data: {
      [METADATA_KEYS.ocpVersion]: outputs.ocpVersion,
      [METADATA_KEYS.sha256]: outputs.archiveSha256,
      [METADATA_KEYS.diskSha256]: outputs.diskSha256,
      [METADATA_KEYS.diskVirtualSizeBytes]: String(outputs.diskVirtualSizeBytes),
    },
  };
}

/**
 * An existing object may be taken over unless another object controls it. A controller reference
 * to a CRCBundle of the same name but another UID is a deleted predecessor (names of cluster-scoped
 * objects are unique), so it is replaced by this bundle's.
 */
export function checkTakeOver(existing: ObjectMeta | undefined, bundleName: string): void {
  const controller = existing?.ownerReferences?.find((o) => o.controller === true);
  if (controller && !(controller.kind === KINDS.bundle && controller.name === bundleName))
    throw new BundleOwnerConflictError(
      `${existing?.namespace}/${existing?.name} is controlled by ${controller.kind} ${controller.name}, not by CRCBundle ${bundleName}`,
    );
}

/**
 * The existing metadata with the desired labels and this bundle as the one controller. A
 * reference to this very bundle (its UID) is kept as it is: the operator made it with
 * blockOwnerDeletion, which the prep account may not set, and needs not change.
 */
export function takeOverMetadata(existing: ObjectMeta, desired: ObjectMeta): ObjectMeta {
  const wanted = desired.ownerReferences?.[0];
  const refs = existing.ownerReferences ?? [];
  const labels = { ...existing.labels, ...desired.labels };
  if (wanted && sameOwner(refs, wanted)) return { ...existing, labels };
  const others = refs.filter((o) => o.controller !== true);
  return { ...existing, labels, ownerReferences: [...others, ...(desired.ownerReferences ?? [])] };
}

function sameRecord(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(b);
  return Object.keys(a ?? {}).length === keys.length && keys.every((key) => a?.[key] === b[key]);
}

function sameOwner(existing: OwnerReference[] | undefined, desired: OwnerReference): boolean {
  return (existing ?? []).some(
    (o) => o.controller === true && o.uid === desired.uid && o.kind === desired.kind,
  );
}

function labelsPresent(existing: ObjectMeta, desired: ObjectMeta): boolean {
  return Object.entries(desired.labels ?? {}).every(([k, v]) => existing.labels?.[k] === v);
}

const isStatus = (error: unknown, status: number): boolean =>
  error instanceof ApiError && error.status === status;

/**
 * Reads first: the operator makes both objects empty and grants get and update on exactly them
 * (RBAC cannot limit create by name), so an existing one is checked and updated; only a missing
 * one is created (AlreadyExists: read again), for an operator that grants create. Replaces only
 * when something differs.
 */
async function createOrUpdate(
  api: ApiClient,
  type: NamespacedType,
  desired: Desired<DataObject>,
  bundleName: string,
): Promise<PublishOutcome> {
  const read = (): Promise<DataObject> =>
    api.get<DataObject>(type, desired.metadata.name, desired.metadata.namespace);
  let existing: DataObject;
  try {
    existing = await read();
  } catch (error) {
    if (!isStatus(error, 404)) throw error;
    try {
      await api.create(type, desired);
      return 'created';
    } catch (createError) {
      if (!isStatus(createError, 409)) throw createError;
      existing = await read();
    }
  }
  const meta = existing.metadata ?? {};
  checkTakeOver(meta, bundleName);
  const unchanged =
    existing.type === desired.type &&
    sameRecord(existing.data, desired.data ?? {}) &&
    labelsPresent(meta, desired.metadata) &&
    sameOwner(meta.ownerReferences, desired.metadata.ownerReferences![0]!);
  if (unchanged) return 'unchanged';
  await api.update(type, {
    ...existing,
    type: desired.type,
    data: desired.data,
    metadata: takeOverMetadata(meta, desired.metadata),
  });
  return 'updated';
}

export interface PublishResult {
  secret: PublishOutcome;
  configMap: PublishOutcome;
}

/** Publishes the SSH key Secret, then the metadata ConfigMap (the controller waits for both). */
export async function publishBundleOutputs(
  api: ApiClient,
  outputs: BundleOutputs,
): Promise<PublishResult> {
  const secret = await createOrUpdate(
    api,
    SECRETS,
    desiredSshKeySecret(outputs),
    outputs.bundleName,
  );
  const configMap = await createOrUpdate(
    api,
    CONFIG_MAPS,
    desiredMetadataConfigMap(outputs),
    outputs.bundleName,
  );
  return { secret, configMap };
}
