import { PODS, PVCS } from '../../../client/api/core-resources.js';
import type { KubeObject } from '../../../operator/kube/objects.js';
import type { SimulatedController } from '../host/simulated-controller.js';
import type { Informer } from '../../../operator/runtime/informer.js';
import { SimulatorHost } from '../host/simulator-host.js';
import type { VirtualMachineObject, VmiObject } from '../host/platform-kinds.js';
import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../host/platform-kinds.js';
import { VmPass } from './kubevirt-vm-pass.js';
import { VmiPass } from './kubevirt-vmi-pass.js';
import { dataVolumeNames, pvcVolumeClaims } from './kubevirt-volumes.js';
import type { SimulatedKubeVirtOptions } from './vmi-guests.js';
import { GuestBooter } from './vmi-guests.js';

const keyOf = (object: KubeObject): string =>
  `${object.metadata!.namespace}/${object.metadata!.name}`;

/** The keys of the VMs or VMIs in a DataVolume's namespace whose spec mounts it. */
function mounting<T extends KubeObject>(
  informer: Informer<T>,
  spec: (object: T) => VmiObject['spec'],
): (dv: KubeObject) => string[] {
  return (dv) =>
    informer
      .list(
        (o) =>
          o.metadata?.namespace === dv.metadata?.namespace &&
          dataVolumeNames(spec(o)).includes(dv.metadata!.name!),
      )
      .map(keyOf);
}

/** The keys of the VMIs in a claim's namespace with a persistentVolumeClaim volume of it. */
function mountingClaim(informer: Informer<VmiObject>): (claim: KubeObject) => string[] {
  return (claim) =>
    informer
      .list(
        (vmi) =>
          vmi.metadata?.namespace === claim.metadata?.namespace &&
          pvcVolumeClaims(vmi.spec).includes(claim.metadata!.name!),
      )
      .map(keyOf);
}

/**
 * KubeVirt simulated: virt-controller's VM and VMI controllers, virt-handler and the launcher
 * pod's kubelet in one (see VmPass and VmiPass for the rules each follows). A VM with runStrategy
 * Always gets a VMI of its name at once (controlled by the VM, with the template's labels and
 * spec, so also its clock offset and its cdrom); the VMI waits in Pending until the DataVolumes it
 * mounts have Succeeded and the claims of its persistentVolumeClaim volumes are Bound, then gets a
 * launcher pod `virt-launcher-<vm>-<suffix>` (labels kubevirt.io=virt-launcher and
 * vm.kubevirt.io/name, controlled by the VMI, every claim mounted) that runs with the VMI's address
 * as its pod IP, and goes Scheduling, Scheduled, and Running with that IP once its guest is up. A
 * guest that powers itself off (powerOff) ends its VMI Succeeded; a reboot stays in the VMI.
 * runStrategy Halted deletes the VMI (its pod and guest go with it); a VMI that is deleted, fails
 * or loses its pod under Always is replaced by a new one (a new UID); RerunOnFailure and Manual as
 * VmPass says.
 */
export class SimulatedKubeVirt {
  /** Problems met while booting guests, for test diagnostics. */
  readonly problems: string[] = [];

  private constructor(private readonly host: SimulatorHost) {}

  static async start(options: SimulatedKubeVirtOptions): Promise<SimulatedKubeVirt> {
    const host = new SimulatorHost(options.kubeConfig, {
      retryBackoff: { baseMs: 50, maxMs: 2000, jitter: 0.1 },
    });
    const kubevirt = new SimulatedKubeVirt(host);
    const vms = host.informer<VirtualMachineObject>(VIRTUAL_MACHINES);
    const vmis = host.informer<VmiObject>(VIRTUAL_MACHINE_INSTANCES);
    host.addController({
      name: 'simulated-kubevirt-vms',
      forType: VIRTUAL_MACHINES,
      owns: [VIRTUAL_MACHINE_INSTANCES],
      watches: [{ type: DATA_VOLUMES, map: mounting(vms, (vm) => vm.spec?.template?.spec) }],
      reconcile: async (key) => {
        const vm = vms.get(key);
        if (!vm || vm.metadata?.deletionTimestamp) return;
        if (!options.servesNamespace(vm.metadata!.namespace!)) return;
        await new VmPass(host, vm).run();
      },
    });
    const holder: { controller?: SimulatedController } = {};
    const booter = new GuestBooter(options, kubevirt.problems, (key) =>
      holder.controller?.enqueue(key),
    );
    holder.controller = host.addController({
      name: 'simulated-kubevirt-vmis',
      forType: VIRTUAL_MACHINE_INSTANCES,
      owns: [PODS],
      watches: [
        { type: DATA_VOLUMES, map: mounting(vmis, (vmi) => vmi.spec) },
        // A cdrom's claim (a persistentVolumeClaim volume) that gets Bound lets the VMI start.
        { type: PVCS, map: mountingClaim(vmis) },
      ],
      reconcile: async (key) => {
        const [namespace] = key.split('/') as [string];
        if (!options.servesNamespace(namespace)) return;
        await new VmiPass(host, options, booter, key).run();
      },
    });
    kubevirt.booter = booter;
    await host.start();
    return kubevirt;
  }

  private booter?: GuestBooter;

  /**
   * The guest of a VMI powered itself off (`systemctl poweroff`): virt-handler sees the domain
   * shut down and the VMI ends Succeeded (its launcher pod completes); a reboot instead stays in
   * the same VMI and needs nothing here.
   */
  powerOff(vmiUid: string): void {
    this.booter?.poweredOff(vmiUid);
  }

  async stop(): Promise<void> {
    await this.host.stop();
    await this.booter?.haltAll();
  }
}
