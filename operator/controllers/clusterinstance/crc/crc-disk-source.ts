import { DATA_VOLUMES } from '../../../api/platform-resources.js';
import { BUNDLES, SECRETS } from '../../../../client/api/resources.js';
import type { VmProfile } from '../../../api/vm-profile.js';
import { VM_PROFILES, vmProfileNamed } from '../../../api/vm-profile.js';
import type { Secret } from '../../../kube/workloads.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { PlatformObject } from '../core/platform-object.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { Instance } from '../core/instance-api.js';
import type { Nothing, Verdict, Wait } from '../../../reconcile/verdict.js';
import { holds, recorded, waiting } from '../../../reconcile/verdict.js';
import { BootKeyError, clonableBy, ensureBootKey, readBundleSource } from './crc-boot-key.js';
import type { DiskSource, SshKeyRef } from './crc-builders.js';
import { bootKeySecretName, crcBundleName, crcDiskName } from './crc-naming.js';

/*
 * Where a crc instance's root disk comes from and which key opens it
 * (docs/reference/instances.md#crc-provisioning, docs/reference/instances.md#crc-boot-key): the
 * manual path imports a URL and uses the bundle key Secret the template names; the turnkey path
 * clones the golden disk of its CRCBundle, bound to it before the disk exists.
 */

const BUNDLE_KEY_NAMES = ['id_ecdsa', 'ssh-privatekey', 'id_rsa'];

/**
 * The manual path's bundle key (docs/reference/instances.md#common-steps): the Secret the template
 * names, and the first non-empty of the known data keys.
 */
export async function bundleSshKey(objects: InstanceObjects): Promise<SshKeyRef> {
  const name = objects.instance.spec.template.bundleSSHKeyRef?.name;
  if (!name)
    throw new InstanceFailure(
      Reason.MissingBundleSSHKey,
      'template.bundleSSHKeyRef is required for topology=crc but not set',
    );
  const secret = await objects.current<Secret>(SECRETS, name);
  if (!secret)
    throw new InstanceFailure(
      Reason.MissingBundleSSHKey,
      `bundle SSH key Secret ${objects.namespace}/${name} not found`,
    );
  const key = BUNDLE_KEY_NAMES.find((k) => secret.data?.[k]);
  if (!key)
    throw new InstanceFailure(
      Reason.MissingBundleSSHKey,
      `bundle SSH key Secret ${objects.namespace}/${name} has none of the data keys ${BUNDLE_KEY_NAMES.join(', ')}`,
    );
  return { secretName: name, dataKey: key };
}

/**
 * A turnkey instance without a binding: waits for its bundle, then records which disk and key
 * it gets. Nothing to do for the manual path or once bound.
 */
export async function bindBootKey(
  objects: InstanceObjects,
  draft: InstanceStatusDraft,
): Promise<Verdict<Nothing>> {
  const bundleName = crcBundleName(objects.instance);
  if (!bundleName || objects.instance.status?.crc?.bootKey) return holds();
  const bundle = await objects.current<PlatformObject>(BUNDLES, bundleName);
  const pending = (message: string) => waiting({ reason: Reason.CRCBackingPending, message });
  if (!bundle) return pending(`CRCBundle ${bundleName} not found yet, waiting`);
  const status = bundle.status as
    | { phase?: string; conditions?: { type: string; reason?: string; message?: string }[] }
    | undefined;
  const phase = status?.phase;
  if (!clonableBy(bundle, objects.instance)) {
    // The bundle's own account (a failed preparation, a source it cannot prepare) is the
    // instance's too: it is what the person reading the pool can act on.
    const why = status?.conditions?.find((c) => c.type === 'Ready');
    const detail = why?.reason && why.message ? `: ${why.reason}: ${why.message}` : '';
    return pending(`CRCBundle "${bundleName}" is not Ready yet (phase=${phase ?? ''})${detail}`);
  }
  const disk = crcDiskName(objects.instance);
  if (await objects.current(DATA_VOLUMES, disk))
    throw new BootKeyError(
      `CRC DataVolume ${objects.namespace}/${disk} exists without a recorded disk/key binding; cannot verify its boot key`,
    );
  const { binding } = await readBundleSource(objects, bundleName);
  draft.status.crc = { ...draft.status.crc, bootKey: binding };
  return recorded();
}

/** The root disk's source, and the key the agent logs in with. */
export interface Disk {
  source: DiskSource;
  /** None on the manual path once the instance was Ready: the agent is done with its guest. */
  sshKey: SshKeyRef | undefined;
}

/**
 * The disk source and the key the agent logs in with: the manual path's import and bundle key
 * (`bundleKey`, looked up while the instance provisions), or the recorded binding's clone and the
 * instance's copy of the bound key, which is (re)made and checked here.
 */
export async function diskSource(
  objects: InstanceObjects,
  bundleKey: SshKeyRef | undefined,
): Promise<Disk> {
  const instance = objects.instance;
  const bundleName = crcBundleName(instance);
  const binding = instance.status?.crc?.bootKey;
  if (!bundleName)
    return { source: { http: instance.spec.template.releaseImage ?? '' }, sshKey: bundleKey };
  if (!binding)
    throw new BootKeyError('CRC boot disk/key binding is missing; automatic recovery is unsafe');
  const sizes = await ensureBootKey(objects, bundleName, binding, crcDiskName(instance));
  return {
    source: {
      pvc: { namespace: binding.pvcNamespace, name: binding.pvcName },
      storageClassName: binding.storageClassName,
      ...sizes,
    },
    sshKey: { secretName: bootKeySecretName(instance.metadata.name), dataKey: 'id_ecdsa' },
  };
}

/**
 * The VM profile the binding records, which the VM is made with (none for the manual path and
 * downloaded bundles: their VM keeps KubeVirt's defaults, as before profiles). Never read from the
 * bundle again: the binding is what the disk was cloned for. A name this operator does not know
 * (a bundle built by a newer one) is a wait that names it: no VM is made on a guess.
 */
export function boundVmProfile(instance: Instance): { profile: VmProfile | undefined } | Wait {
  const name = instance.status?.crc?.bootKey?.vmProfile;
  if (!name) return { profile: undefined };
  const profile = vmProfileNamed(name);
  if (profile) return { profile };
  const known = Object.keys(VM_PROFILES).join(', ');
  return {
    reason: Reason.UnknownVMProfile,
    message:
      `CRCBundle "${crcBundleName(instance) ?? ''}" was built for VM profile "${name}", which this ` +
      `operator does not know (it knows ${known}); run an operator version that knows "${name}", ` +
      'or use a bundle built for a known profile',
  };
}
