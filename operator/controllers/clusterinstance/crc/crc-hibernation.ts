import { JOBS } from '../../../../client/api/core-resources.js';
import { SECRETS } from '../../../../client/api/resources.js';
import { VIRTUAL_MACHINES } from '../../../api/platform-resources.js';
import type { Stored } from '../../../kube/objects.js';
import type { ReconcileResult } from '../../../runtime/controller.js';
import { recordHibernation } from '../core/hibernation.js';
import { kubeconfigSecretName } from '../core/naming.js';
import type { PlatformObject } from '../core/platform-object.js';
import { agentJobName, crcVmName } from './crc-naming.js';
import type { CrcPass } from './crc-pass.js';
import { announce } from './crc-pass.js';
import { recordCrcIdentity } from './crc-records.js';
import { currentVmi } from './crc-vmi.js';

/** How KubeVirt runs a VM: the run strategy, or the older `running` flag. */
export function vmRunStrategy(vm: PlatformObject): string | undefined {
  const spec = vm.spec as { runStrategy?: string; running?: boolean } | undefined;
  return (
    spec?.runStrategy ??
    (spec?.running === undefined ? undefined : spec.running ? 'Always' : 'Halted')
  );
}

/**
 * Sets the VM's run strategy (the `running` flag goes: KubeVirt refuses both); true when it was
 * changed. The write carries the VM's resourceVersion.
 */
export async function setRunStrategy(
  pass: Pick<CrcPass, 'api' | 'objects'>,
  vm: Stored<PlatformObject>,
  strategy: 'Always' | 'Halted',
): Promise<boolean> {
  const spec = vm.spec;
  if (spec?.runStrategy === strategy && spec.running === undefined) return false;
  await pass.objects.verify(VIRTUAL_MACHINES, vm);
  const next: Record<string, unknown> = { ...spec, runStrategy: strategy };
  delete next.running;
  await pass.api.update(VIRTUAL_MACHINES, { ...vm, spec: next });
  return true;
}

/**
 * Hibernates a crc guest (docs/reference/instances.md#hibernation): the VM's run strategy
 * becomes Halted, so KubeVirt deletes its VMI and the root disk (DataVolume and PVC) stays
 * (kubevirt pkg/virt-controller/watch/vm/vm.go, syncRunStrategy). What belonged to the guest
 * that ran goes with it: the agent Job of its VMI and the published kubeconfig; a resumed guest
 * is a new VMI, which the agent finishes again as after any boot. Once the VMI is gone its UID is
 * forgotten, so that the next VMI is the instance's first again, not a replacement.
 */
export async function hibernateCrc(pass: CrcPass): Promise<ReconcileResult> {
  const { objects, draft, records } = pass;
  const name = objects.instance.metadata.name;
  const where = `VirtualMachine ${objects.namespace}/${crcVmName(objects.instance)}`;
  await recordCrcIdentity(objects, draft, { live: false, vmi: false });
  const vm = await objects.current<PlatformObject>(VIRTUAL_MACHINES, crcVmName(objects.instance));
  if (vm && (await setRunStrategy(pass, vm, 'Halted')))
    announce(
      pass,
      'VirtualMachineHalted',
      `Halted ${where} to hibernate the spare; its disk is kept`,
    );
  const recorded = records.recorded('VirtualMachineInstance')?.uid;
  if (recorded)
    await objects.remove(JOBS, agentJobName(name, recorded), { propagationPolicy: 'Foreground' });
  await objects.remove(SECRETS, kubeconfigSecretName(name));
  const vmi = await currentVmi(objects);
  const printable = (vm?.status as { printableStatus?: string } | undefined)?.printableStatus;
  const stopped = !vmi && (!vm || printable === 'Stopped');
  if (stopped && draft.status.crc?.vmiUID) {
    draft.status.crc = { ...draft.status.crc, vmiUID: undefined };
    delete draft.status.crc.vmiUID;
  }
  recordHibernation(draft, pass.api.now(), {
    stopped,
    message: stopped
      ? `${where} is halted; its disk is kept, and a lease resumes it`
      : `waiting for ${where} to stop (printableStatus ${printable ?? 'unknown'})`,
  });
  return {};
}
