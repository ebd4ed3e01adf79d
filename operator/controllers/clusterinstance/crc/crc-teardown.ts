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
} from '../../../../client/api/core-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  PERSISTENT_VOLUME_CLAIMS,
  ROUTES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import type { KubeObject, Stored } from '../../../kube/objects.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import type { PlatformObject } from '../core/platform-object.js';
import { HANDOFF_MANAGED_BY } from './crc-agent-builders.js';
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

/**
 * crc teardown, in the order of docs/reference/instances.md#deletion: the agent first (foreground,
 * so its pods are gone before the key and permissions they use), then its RBAC and the boot key,
 * then the VM halted and deleted with its VMI and launcher pods, the disk, the handoffs, and the
 * endpoint last. True while something is still going away.
 */
export async function crcTeardown(api: InstanceApi, objects: InstanceObjects): Promise<boolean> {
  const instance = objects.instance;
  const name = instance.metadata.name;
  const ns = objects.namespace;
  const jobs = await api.list<KubeObject>(JOBS, { namespace: ns });
  const agentJobs = jobs.filter(
    (job) =>
      objects.controls(job) ||
      (job.metadata?.labels?.[LABEL_CLUSTER_INSTANCE] === name &&
        job.metadata.labels[LABEL_MANAGED_BY] === MANAGED_BY_OPERATOR),
  );
  for (const job of agentJobs)
    await objects.remove(JOBS, job.metadata.name, { propagationPolicy: 'Foreground' });
  if (agentJobs.length > 0) return true;

  for (const [type, object] of [
    [ROLE_BINDINGS, agentHandoffBindingName(name)],
    [ROLE_BINDINGS, agentBindingName(name)],
    [ROLES, agentHandoffRoleName(name)],
    [SERVICE_ACCOUNTS, agentAccountName(name)],
  ] as const)
    await objects.remove(type, object, { only: 'controlled' });
  if (instance.status?.crc?.bootKey)
    await objects.remove(SECRETS, bootKeySecretName(name), { only: 'controlled' });

  let pending = await removeVmAndDisk(api, objects);

  pending = (await removeHandoffs(api, objects)) || pending;
  pending =
    (await objects.remove(SECRETS, legacyHandoffSecretName(name), { only: 'controlled' })) ||
    pending;
  pending = (await objects.remove(ROUTES, crcApiName(name))) || pending;
  pending = (await objects.remove(SERVICES, crcApiName(name))) || pending;
  return pending;
}

/**
 * The agent's handoff Secrets: ours, or unowned ones a legacy agent made; never another owner's.
 */
async function removeHandoffs(api: InstanceApi, objects: InstanceObjects): Promise<boolean> {
  const name = objects.instance.metadata.name;
  const handoffs = await api.list<KubeObject>(SECRETS, {
    namespace: objects.namespace,
    labelSelector: `${LABEL_MANAGED_BY}=${HANDOFF_MANAGED_BY},${LABEL_CLUSTER_INSTANCE}=${name}`,
  });
  let pending = false;
  for (const secret of handoffs) {
    const owners = secret.metadata?.ownerReferences ?? [];
    if (owners.length > 0 && !objects.controls(secret)) continue;
    pending = (await objects.remove(SECRETS, secret.metadata.name, { only: 'checked' })) || pending;
  }
  return pending;
}

/**
 * Halts a VM that still runs, so KubeVirt stops the guest before its objects go; true while
 * that is in progress.
 */
async function halting(
  api: InstanceApi,
  objects: InstanceObjects,
  vm: Stored<PlatformObject>,
): Promise<boolean> {
  await objects.verify(VIRTUAL_MACHINES, vm);
  if (vm.metadata?.deletionTimestamp) return false;
  if (vm.spec?.runStrategy !== 'Halted' || vm.spec.running !== undefined) {
    const spec: Record<string, unknown> = { ...vm.spec, runStrategy: 'Halted' };
    delete spec.running;
    await api.update(VIRTUAL_MACHINES, { ...vm, spec });
    return true;
  }
  const vmi = await objects.live(VIRTUAL_MACHINE_INSTANCES, vm.metadata.name);
  return !!vmi && (vm.status as { runStrategy?: string } | undefined)?.runStrategy !== 'Halted';
}

/**
 * Halt, then delete VM, VMI, launcher pods, DataVolume and PVC
 * (docs/reference/instances.md#deletion).
 */
async function removeVmAndDisk(api: InstanceApi, objects: InstanceObjects): Promise<boolean> {
  const instance = objects.instance;
  const ns = objects.namespace;
  const vmName = crcVmName(instance);
  const vm = await objects.live<PlatformObject>(VIRTUAL_MACHINES, vmName);
  if (vm && (await halting(api, objects, vm))) return true;
  let pending = vm ? await objects.remove(VIRTUAL_MACHINES, vmName) : false;
  if (await objects.remove(VIRTUAL_MACHINE_INSTANCES, vmName)) return true;
  const pods = await api.list<KubeObject>(PODS, {
    namespace: ns,
    labelSelector: `${LABEL_VM_NAME}=${vmName}`,
  });
  for (const pod of pods) {
    pending = true;
    await api.delete(PODS, pod);
  }
  if (pending) return true;
  if (await objects.remove(DATA_VOLUMES, crcDiskName(instance))) return true;
  return objects.remove(PERSISTENT_VOLUME_CLAIMS, crcDiskName(instance));
}
