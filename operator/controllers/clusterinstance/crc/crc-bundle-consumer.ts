import type { CRCBundle } from '../../../../client/api/resources.js';
import { BUNDLES, NAMESPACES } from '../../../../client/api/resources.js';
import { DATA_VOLUMES } from '../../../api/platform-resources.js';
import type { KubeObject } from '../../../kube/objects.js';
import { consumerRefusal } from '../../bundle-consumers.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { Reason } from '../core/reasons.js';
import type { Nothing, Verdict } from '../../../reconcile/verdict.js';
import { holds, waiting } from '../../../reconcile/verdict.js';
import { validating } from './crc-boot-key.js';
import { crcBundleName, crcDiskName } from './crc-naming.js';

/**
 * Before anything is cloned for it, a turnkey instance's namespace must be one its bundle's
 * spec.consumers.namespaceSelector selects (docs/reference/kinds.md#crcbundle): the pool
 * controller refuses such a pool already; this holds for an instance made any other way. It
 * waits with CRCBundleNotAllowed and a Warning Event, binds no boot key and makes no disk. An
 * instance whose disk exists keeps it; a build's own validation instance is the bundle's.
 */
export async function bundleConsumer(objects: InstanceObjects): Promise<Verdict<Nothing>> {
  const instance = objects.instance;
  const bundleName = crcBundleName(instance);
  if (!bundleName || (await objects.current(DATA_VOLUMES, crcDiskName(instance)))) return holds();
  const bundle = await objects.current<CRCBundle>(BUNDLES, bundleName);
  if (!bundle?.spec.consumers?.namespaceSelector || validating(bundle, instance)) return holds();
  const namespace = await objects.current<KubeObject>(NAMESPACES, objects.namespace);
  const message = consumerRefusal(bundle, {
    name: objects.namespace,
    labels: namespace?.metadata?.labels,
  });
  // A Warning Event goes out with the status that says so (write-status.ts).
  return message ? waiting({ reason: Reason.CRCBundleNotAllowed, message }) : holds();
}
