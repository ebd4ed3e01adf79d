import {
  CONFIG_MAPS,
  JOBS,
  NETWORK_POLICIES,
  PODS,
  PVCS,
  SERVICES,
} from '../../../client/api/core-resources.js';
import { INSTANCES, SECRETS } from '../../../client/api/resources.js';
import {
  DATA_VOLUMES,
  DEPLOYMENTS,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../api/platform-resources.js';
import type { KubeObject, Stored } from '../../kube/objects.js';
import type { NamespacedType } from '../../../client/kube/resource-type.js';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import type { Bundle } from './build-meta.js';
import { LABEL_BUILD_ATTEMPT } from './build-meta.js';
import { isControlledBy } from '../../kube/ownership.js';

/** What runs: stopped first (Jobs, VMs, the validation instance), and waited for. */
const RUNNING: NamespacedType[] = [JOBS, VIRTUAL_MACHINES, INSTANCES];
/** What holds the disks while it exists: VMIs and the pods of VMs and Jobs. */
const HOLDERS: NamespacedType[] = [VIRTUAL_MACHINE_INSTANCES, PODS];
/** Storage, credentials, DNS and the guests' NetworkPolicy: deleted once nothing runs on them. */
const STORED: NamespacedType[] = [
  DATA_VOLUMES,
  PVCS,
  SECRETS,
  CONFIG_MAPS,
  SERVICES,
  DEPLOYMENTS,
  NETWORK_POLICIES,
];

/** Every kind a build creates (directly, or KubeVirt, CDI and the Job controller for it). */
export const BUILD_KINDS: readonly NamespacedType[] = [...RUNNING, ...HOLDERS, ...STORED];

export interface TeardownScope {
  namespace: string;
  attempt: string;
  /** Names kept (a Ready bundle's golden DataVolume and its claim). */
  keep: ReadonlySet<string>;
}

/**
 * Removes one attempt's objects in order: Jobs, VMs and the validation instance first; storage,
 * Secrets and DNS only once no VMI, launcher pod or Job pod of the attempt is left, so that a disk
 * is never deleted under a guest. True once nothing of the attempt is left but `keep`.
 */
export async function tearDownAttempt(
  ports: ControllerPorts,
  bundle: Bundle,
  scope: TeardownScope,
  context: ReconcileContext,
): Promise<boolean> {
  const selector = `${LABEL_BUILD_ATTEMPT}=${scope.attempt}`;
  const list = (type: NamespacedType) =>
    ports.client.list<KubeObject>(type, { namespace: scope.namespace, labelSelector: selector });
  const leftovers = async (types: readonly NamespacedType[]) => {
    const found: [NamespacedType, Stored<KubeObject>][] = [];
    for (const type of types)
      for (const object of await list(type))
        if (!scope.keep.has(object.metadata.name)) found.push([type, object]);
    return found;
  };
  const running = await leftovers(RUNNING);
  await remove(ports, bundle, running, context);
  const holders = (await leftovers(HOLDERS)).filter(([type, o]) => type !== PODS || holdsDisk(o));
  if (running.length || holders.length) return false;
  const stored = await leftovers(STORED);
  await remove(ports, bundle, stored, context);
  return stored.length === 0;
}

/** Launcher pods and Job pods mount the build's volumes; the DNS pods do not. */
function holdsDisk(pod: KubeObject): boolean {
  const labels = pod.metadata?.labels ?? {};
  return labels['kubevirt.io'] === 'virt-launcher' || 'batch.kubernetes.io/job-name' in labels;
}

async function remove(
  ports: ControllerPorts,
  bundle: Bundle,
  objects: [NamespacedType, Stored<KubeObject>][],
  context: ReconcileContext,
): Promise<void> {
  for (const [type, object] of objects) {
    // Only the bundle's own (KubeVirt's and CDI's go with their owners); each delete names its UID.
    if (object.metadata.deletionTimestamp || !isControlledBy(object, bundle)) continue;
    if (await ports.client.deleteIfExists(type, object, { propagationPolicy: 'Background' }))
      context.logger.info({ name: object.metadata.name }, `Deleted build ${type.kind}`);
  }
}
