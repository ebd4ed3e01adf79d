import { createHash } from 'node:crypto';
import type { ClusterInstance, CRCBundle } from '../../../../client/api/resources.js';
import { BUNDLES, SECRETS } from '../../../../client/api/resources.js';
import { DATA_VOLUMES, PERSISTENT_VOLUME_CLAIMS } from '../../../api/platform-resources.js';
import type { KubeObject, Stored, StoredCluster } from '../../../kube/objects.js';
import type { Secret } from '../../../kube/workloads.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { PlatformObject } from '../core/platform-object.js';
import { buildBootKeySecret } from './crc-builders.js';
import { bootKeySecretName } from './crc-naming.js';

/*
 * The boot key binding of a turnkey instance (docs/reference/instances.md#crc-boot-key): which
 * golden disk and which SSH key it boots with, recorded before its disk exists, so that the key
 * handed to the agent is always the one of the disk that was cloned. A bundle whose disk or key
 * changed is refused, never silently followed.
 */

export type BootKeyBinding = NonNullable<NonNullable<ClusterInstance['status']>['crc']>['bootKey'] &
  object;

/** Anything that makes the boot key unusable; the instance waits with BootKeyUnavailable. */
export class BootKeyError extends Error {
  override name = 'BootKeyError';
}

/** The bundle's current disk and key, as a binding, with the key bytes (base64) and disk sizes. */
interface BundleSource {
  binding: BootKeyBinding;
  keyBase64: string;
  virtualSizeBytes: number | undefined;
  /** The golden PVC's storage request, which a clone must not go below. */
  sourceRequest: string | undefined;
}

/** What the instance's clone of the golden disk must be at least. */
export interface CloneSizes {
  virtualSizeBytes: number | undefined;
  sourceRequest: string | undefined;
}

type Claim = KubeObject & { spec?: { resources?: { requests?: { storage?: string } } } };

const uidOf = (object: KubeObject): string => object.metadata?.uid ?? '';
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

function incomplete(name: string): BootKeyError {
  return new BootKeyError(
    `CRCBundle ${name} has invalid or incomplete Ready disk/SSH key references`,
  );
}

/**
 * Whether the bundle is a build being validated and the instance is its validation instance (the
 * one its status names, by UID): only that instance may clone a golden disk before the bundle is
 * Ready. A failed build, or one still running, is no clone source for anyone.
 */
export function validating(
  bundle: KubeObject & Pick<CRCBundle, 'status'>,
  instance: KubeObject,
): boolean {
  const build = bundle.status?.build;
  const validation = build?.objects?.find((o) => o.role === 'ValidationInstance');
  return (
    bundle.status?.phase === 'Preparing' &&
    build?.stage === 'Validate' &&
    !!validation?.uid &&
    validation.uid === instance.metadata?.uid &&
    validation.namespace === instance.metadata?.namespace
  );
}

/** Whether an instance may clone the bundle's golden disk: Ready, or validated by this instance. */
export function clonableBy(
  bundle: KubeObject & Pick<CRCBundle, 'status'>,
  instance: KubeObject,
): boolean {
  return bundle.status?.phase === 'Ready' || validating(bundle, instance);
}

/** The bundle's Ready references, or the "incomplete" error. */
function bundleRefs(
  bundle: StoredCluster<CRCBundle>,
  instance: KubeObject,
): {
  checksum: string;
  namespace: string;
  pvcName: string;
  secretName: string;
} {
  const status = bundle.status ?? {};
  const refs = {
    checksum: status.sha256 || status.diskSHA256 || '',
    namespace: status.qcow2PVCNamespace ?? '',
    pvcName: status.qcow2PVCRef?.name ?? '',
    secretName: status.sshKeySecretRef?.name ?? '',
  };
  if (!clonableBy(bundle, instance) || Object.values(refs).some((value) => !value))
    throw incomplete(bundle.metadata.name);
  return refs;
}

/** Reads the bundle, its golden PVC and its SSH key Secret ("verify source"). */
export async function readBundleSource(
  objects: InstanceObjects,
  bundleName: string,
): Promise<BundleSource> {
  const bundle = await objects.current<CRCBundle>(BUNDLES, bundleName);
  if (!bundle) throw new BootKeyError(`CRCBundle ${bundleName} not found`);
  const refs = bundleRefs(bundle, objects.instance);
  const where = `${refs.namespace}/`;
  const pvc = await objects.current<Claim>(PERSISTENT_VOLUME_CLAIMS, refs.pvcName, refs.namespace);
  const secret = await objects.current<Secret>(SECRETS, refs.secretName, refs.namespace);
  const key = secret?.data?.id_ecdsa;
  if (!pvc)
    throw new BootKeyError(
      `golden PVC ${where}${refs.pvcName} of CRCBundle ${bundleName} is missing`,
    );
  if (!key)
    throw new BootKeyError(
      `SSH key Secret ${where}${refs.secretName} of CRCBundle ${bundleName} has no data key "id_ecdsa"`,
    );
  const binding: BootKeyBinding = {
    bundleUID: uidOf(bundle),
    bundleSHA256: refs.checksum,
    pvcNamespace: refs.namespace,
    pvcName: refs.pvcName,
    pvcUID: uidOf(pvc),
    secretNamespace: refs.namespace,
    secretName: refs.secretName,
    secretUID: uidOf(secret),
    keySHA256: sha256(Buffer.from(key, 'base64')),
    ...(bundle.spec.storageClassName ? { storageClassName: bundle.spec.storageClassName } : {}),
    // A built disk boots only on the VM profile it was built for; a download names none.
    ...(bundle.status?.build?.profile ? { vmProfile: bundle.status.build.profile } : {}),
  };
  if ([binding.bundleUID, binding.pvcUID, binding.secretUID].includes(''))
    throw incomplete(bundleName);
  return {
    binding,
    keyBase64: key,
    virtualSizeBytes: bundle.status?.diskVirtualSizeBytes,
    sourceRequest: pvc.spec?.resources?.requests?.storage,
  };
}

/** What must not have changed; the VM profile goes with the disk and is never read again. */
const FIELDS: (keyof BootKeyBinding)[] = [
  'bundleUID',
  'bundleSHA256',
  'pvcNamespace',
  'pvcName',
  'pvcUID',
  'secretNamespace',
  'secretName',
  'secretUID',
  'keySHA256',
  'storageClassName',
];

/** The bundle's source, refused when it differs from the recorded binding in any field. */
export async function verifySource(
  objects: InstanceObjects,
  bundleName: string,
  recorded: BootKeyBinding,
): Promise<BundleSource> {
  const source = await readBundleSource(objects, bundleName);
  if (FIELDS.some((field) => (source.binding[field] ?? '') !== (recorded[field] ?? '')))
    throw new BootKeyError(
      `CRCBundle ${bundleName} disk or boot SSH key changed since this instance was created; refusing recovery`,
    );
  return source;
}

/**
 * With a binding: the instance's key copy exists, is the instance's and holds the recorded key
 * (made from the verified source when missing); and the DataVolume, when `diskName` is given,
 * clones the recorded PVC. Returns the sizes a new clone needs when the source was read.
 */
export async function ensureBootKey(
  objects: InstanceObjects,
  bundleName: string,
  binding: BootKeyBinding,
  diskName?: string,
): Promise<CloneSizes> {
  const fromCopy = await ensureKeyCopy(objects, bundleName, binding);
  if (!diskName) return fromCopy;
  const disk = await objects.current<PlatformObject>(DATA_VOLUMES, diskName);
  if (!disk) {
    try {
      const source = await verifySource(objects, bundleName, binding);
      return { virtualSizeBytes: source.virtualSizeBytes, sourceRequest: source.sourceRequest };
    } catch (error) {
      throw new BootKeyError(
        `cannot create CRC disk from changed source: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  await checkDisk(objects, disk, binding);
  return fromCopy;
}

async function ensureKeyCopy(
  objects: InstanceObjects,
  bundleName: string,
  binding: BootKeyBinding,
): Promise<CloneSizes> {
  const instance = objects.instance;
  const name = `${objects.namespace}/${bootKeySecretName(instance.metadata.name)}`;
  const copy = await objects.current<Secret>(SECRETS, bootKeySecretName(instance.metadata.name));
  if (!copy) {
    const source = await verifySource(objects, bundleName, binding);
    await objects.ensure(SECRETS, buildBootKeySecret(instance, source.keyBase64));
    return { virtualSizeBytes: source.virtualSizeBytes, sourceRequest: source.sourceRequest };
  }
  if (!objects.controls(copy))
    throw new BootKeyError(`boot key Secret ${name} is not controlled by this ClusterInstance`);
  if (sha256(Buffer.from(copy.data?.id_ecdsa ?? '', 'base64')) !== binding.keySHA256)
    throw new BootKeyError(`boot key Secret ${name} does not hold the recorded key`);
  return { virtualSizeBytes: undefined, sourceRequest: undefined };
}

/** An existing disk clones the recorded PVC, which must outlive an unfinished clone. */
async function checkDisk(
  objects: InstanceObjects,
  disk: Stored<PlatformObject>,
  binding: BootKeyBinding,
): Promise<void> {
  const recorded = `${binding.pvcNamespace}/${binding.pvcName}`;
  const source = disk.spec?.source as { pvc?: { namespace?: string; name?: string } } | undefined;
  if (`${source?.pvc?.namespace}/${source?.pvc?.name}` !== recorded)
    throw new BootKeyError(
      `CRC DataVolume ${objects.namespace}/${disk.metadata.name} does not clone the recorded PVC ${recorded}`,
    );
  if ((disk.status as { phase?: string } | undefined)?.phase === 'Succeeded') return;
  const golden = await objects.current<KubeObject>(
    PERSISTENT_VOLUME_CLAIMS,
    binding.pvcName,
    binding.pvcNamespace,
  );
  if (golden?.metadata?.uid !== binding.pvcUID)
    throw new BootKeyError(
      `recorded golden PVC ${recorded} (UID ${binding.pvcUID}) is gone while the clone is not done`,
    );
}
