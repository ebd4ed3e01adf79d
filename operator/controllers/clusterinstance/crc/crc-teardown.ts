import {
  LABEL_CLUSTER_INSTANCE,
  LABEL_MANAGED_BY,
  MANAGED_BY_OPERATOR,
} from '../../../api/labels.js';
import {
  JOBS,
  PODS,
  ROLE_BINDINGS,
  ROLES,
  SERVICE_ACCOUNTS,
  SERVICES,
} from '../../../api/core-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import { SECRETS } from '../../../api/resources.js';
import { isNotFound } from '../../../kube/api-error.js';
import type { KubeObject } from '../../../kube/objects.js';
import type { Manager } from '../../../runtime/manager.js';
import type { PlatformObject } from '../hcp/hcp-builders.js';
import { HANDOFF_MANAGED_BY } from './crc-builders.js';
import {
  agentAccountName,
  agentBindingName,
  agentHandoffBindingName,
  agentHandoffRoleName,
  bootKeySecretName,
  crcApiName,
  crcDiskName,
  crcVmName,
  legacyHandoffSecretName,
} from './crc-naming.js';
import type { CrcObjects } from './crc-objects.js';
import { controlledBy } from './crc-ownership.js';

/**
 * crc teardown, in the order of spec §2.3.7: the agent first (foreground, so its pods are gone
 * before the key and permissions they use), then its RBAC and the boot key, then the VM halted
 * and deleted with its VMI and launcher pods, the disk, the handoffs, and the endpoint last.
 * True while something is still going away.
 */
export async function crcTeardown(manager: Manager, objects: CrcObjects): Promise<boolean> {
  const instance = objects.instance;
  const name = instance.metadata!.name!;
  const ns = objects.namespace;
  const jobs = await manager.client.list<KubeObject>(JOBS, { namespace: ns });
  const agentJobs = jobs.items.filter(
    (job) =>
      controlledBy(job, instance) ||
      (job.metadata?.labels?.[LABEL_CLUSTER_INSTANCE] === name &&
        job.metadata.labels[LABEL_MANAGED_BY] === MANAGED_BY_OPERATOR),
  );
  for (const job of agentJobs)
    await objects.remove(JOBS, job.metadata!.name!, { propagationPolicy: 'Foreground' });
  if (agentJobs.length > 0) return true;

  for (const [type, object] of [
    [ROLE_BINDINGS, agentHandoffBindingName(name)],
    [ROLE_BINDINGS, agentBindingName(name)],
    [ROLES, agentHandoffRoleName(name)],
    [SERVICE_ACCOUNTS, agentAccountName(name)],
  ] as const)
    await objects.remove(type, object, { onlyControlled: true });
  if (instance.status?.crc?.bootKey)
    await objects.remove(SECRETS, bootKeySecretName(name), { onlyControlled: true });

  let pending = await removeVmAndDisk(manager, objects);

  pending = (await removeHandoffs(manager, objects)) || pending;
  pending =
    (await objects.remove(SECRETS, legacyHandoffSecretName(name), { onlyControlled: true })) ||
    pending;
  pending = (await objects.remove(ROUTES, crcApiName(name))) || pending;
  pending = (await objects.remove(SERVICES, crcApiName(name))) || pending;
  return pending;
}

/** The agent's handoff Secrets: ours, or unowned ones a legacy agent made; never another owner's. */
async function removeHandoffs(manager: Manager, objects: CrcObjects): Promise<boolean> {
  const name = objects.instance.metadata!.name!;
  const handoffs = await manager.client.list<KubeObject>(SECRETS, {
    namespace: objects.namespace,
    labelSelector: `${LABEL_MANAGED_BY}=${HANDOFF_MANAGED_BY},${LABEL_CLUSTER_INSTANCE}=${name}`,
  });
  let pending = false;
  for (const secret of handoffs.items) {
    const owners = secret.metadata?.ownerReferences ?? [];
    if (owners.length > 0 && !controlledBy(secret, objects.instance)) continue;
    pending =
      (await objects.remove(SECRETS, secret.metadata!.name!, { skipVerify: true })) || pending;
  }
  return pending;
}

/**
 * Halts a VM that still runs, so KubeVirt stops the guest before its objects go; true while
 * that is in progress.
 */
async function halting(
  manager: Manager,
  objects: CrcObjects,
  vm: PlatformObject,
): Promise<boolean> {
  await objects.verify(VIRTUAL_MACHINES, vm);
  if (vm.metadata?.deletionTimestamp) return false;
  if (vm.spec?.runStrategy !== 'Halted' || vm.spec.running !== undefined) {
    const spec: Record<string, unknown> = { ...vm.spec, runStrategy: 'Halted' };
    delete spec.running;
    await manager.client.update(VIRTUAL_MACHINES, { ...vm, spec });
    return true;
  }
  const vmi = await objects.live(VIRTUAL_MACHINE_INSTANCES, vm.metadata!.name!);
  return !!vmi && (vm.status as { runStrategy?: string } | undefined)?.runStrategy !== 'Halted';
}

/** Halt, then delete VM, VMI, launcher pods, DataVolume and PVC (spec §2.3.7 step 5). */
async function removeVmAndDisk(manager: Manager, objects: CrcObjects): Promise<boolean> {
  const instance = objects.instance;
  const ns = objects.namespace;
  const vmName = crcVmName(instance);
  const vm = await objects.live<PlatformObject>(VIRTUAL_MACHINES, vmName);
  if (vm && (await halting(manager, objects, vm))) return true;
  let pending = vm ? await objects.remove(VIRTUAL_MACHINES, vmName) : false;
  if (await objects.remove(VIRTUAL_MACHINE_INSTANCES, vmName)) return true;
  const pods = await manager.client.list<KubeObject>(PODS, {
    namespace: ns,
    labelSelector: `${LABEL_VM_NAME}=${vmName}`,
  });
  for (const pod of pods.items) {
    pending = true;
    try {
      await manager.client.delete(PODS, pod.metadata!.name!, ns, { uid: pod.metadata?.uid });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  if (pending) return true;
  if (await objects.remove(DATA_VOLUMES, crcDiskName(instance))) return true;
  return objects.remove(PERSISTENT_VOLUME_CLAIMS, crcDiskName(instance));
}
