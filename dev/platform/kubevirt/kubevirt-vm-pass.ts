import { isAlreadyExists, isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import type {
  Condition,
  DataVolumeObject,
  VirtualMachineObject,
  VmiObject,
} from '../host/platform-kinds.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../host/platform-kinds.js';
import { dataVolumeError, dataVolumeNames, dataVolumeProvisioning } from './kubevirt-volumes.js';
import { withTransitions, writeStatus } from '../host/platform-status.js';

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

function runStrategy(vm: VirtualMachineObject): string {
  return vm.spec?.runStrategy ?? (vm.spec?.running ? 'Always' : 'Halted');
}

const isFinal = (vmi: VmiObject): boolean =>
  ['Failed', 'Succeeded'].includes(vmi.status?.phase ?? '');

/**
 * One pass of virt-controller's VM controller for a VM (pkg/virt-controller/watch/vm/vm.go,
 * syncRunStrategy): runStrategy Always keeps a VMI of the VM's name (created at once: only
 * dataVolumeTemplates are waited for, never a standalone DataVolume, which the VMI controller waits
 * for instead), replacing one that has ended; RerunOnFailure removes a VMI that ended, starting a
 * new one only after a Failed one (a guest poweroff, Succeeded, leaves the VM stopped), and starts
 * one when the VM's status.runStrategy differs from the spec's (shouldStartRerunOnFailure: a VM just
 * created, or just set back from Halted); Halted deletes the VMI; Manual starts and stops only
 * through the start/stop subresources, which are not simulated (a Manual VM keeps what it has).
 * status.runStrategy follows the spec once the VM has had a VMI (updateStatus). The status says
 * what the VM is (printableStatus in setPrintableStatus' order of precedence), whether its VMI
 * exists and is ready.
 */
export class VmPass {
  constructor(
    private readonly host: SimulatorHost,
    private readonly vm: VirtualMachineObject,
  ) {}

  private get key(): string {
    return keyOf(this.vm.metadata!.namespace!, this.vm.metadata!.name!);
  }

  async run(): Promise<void> {
    const strategy = runStrategy(this.vm);
    const vmi = this.host.informer<VmiObject>(VIRTUAL_MACHINE_INSTANCES).get(this.key);
    const ours = vmi?.metadata?.ownerReferences?.some((r) => r.uid === this.vm.metadata!.uid);
    if (vmi && !ours) return this.status(strategy, 'Stopped', undefined); // not this VM's VMI
    if (strategy === 'Always') return this.keepRunning(vmi);
    if (strategy === 'RerunOnFailure') return this.rerunOnFailure(vmi);
    if (strategy === 'Manual') return this.status(strategy, vmi ? printable(vmi) : 'Stopped', vmi);
    if (vmi && !vmi.metadata?.deletionTimestamp) await this.deleteVmi(vmi);
    return this.status(strategy, vmi ? 'Stopping' : 'Stopped', vmi);
  }

  /**
   * runStrategy RerunOnFailure: an ended VMI is deleted (a Failed one restarted: the next pass,
   * with no VMI, starts one as if asked to); with no VMI, one starts only when the spec's strategy
   * is not the one the status last saw (a new VM, or one set back from Halted).
   */
  private async rerunOnFailure(current: VmiObject | undefined): Promise<void> {
    const strategy = 'RerunOnFailure';
    if (current && !current.metadata?.deletionTimestamp && isFinal(current)) {
      await this.deleteVmi(current);
      // A Failed VMI is restarted through a start request (addStartRequest), a Succeeded one not.
      const requests = current.status?.phase === 'Failed' ? [{ action: 'Start' }] : [];
      return this.status(strategy, 'Stopping', current, requests);
    }
    if (current) return this.keepRunning(current, strategy);
    const asked = (this.vm.status?.stateChangeRequests ?? []).some((r) => r.action === 'Start');
    if (this.vm.status?.runStrategy === strategy && !asked)
      return this.status(strategy, 'Stopped', undefined);
    return this.keepRunning(undefined, strategy); // the request is used up (status() drops it)
  }

  /** runStrategy Always: a VMI at once, replaced when it has ended. */
  private async keepRunning(current: VmiObject | undefined, strategy = 'Always'): Promise<void> {
    if (current && isFinal(current)) {
      await this.deleteVmi(current); // restarted: the next pass creates a new VMI
      return this.status(strategy, 'Starting', current);
    }
    const vmi = current ?? (await this.createVmi());
    const volumes = this.dataVolumes();
    const printable =
      vmi.status?.phase === 'Running' && !vmi.metadata?.deletionTimestamp
        ? 'Running'
        : dataVolumeError(volumes)
          ? 'DataVolumeError'
          : dataVolumeProvisioning(volumes)
            ? 'Provisioning'
            : unschedulable(vmi)
              ? 'ErrorUnschedulable'
              : 'Starting';
    return this.status(strategy, printable, vmi);
  }

  private dataVolumes(): (DataVolumeObject | undefined)[] {
    const cache = this.host.informer<DataVolumeObject>(DATA_VOLUMES);
    return dataVolumeNames(this.vm.spec?.template?.spec).map((name) =>
      cache.get(keyOf(this.vm.metadata!.namespace!, name)),
    );
  }

  private async createVmi(): Promise<VmiObject> {
    const template = this.vm.spec?.template;
    try {
      return await this.host.client.create<VmiObject>(VIRTUAL_MACHINE_INSTANCES, {
        apiVersion: VIRTUAL_MACHINE_INSTANCES.apiVersion,
        kind: VIRTUAL_MACHINE_INSTANCES.kind,
        metadata: {
          name: this.vm.metadata!.name,
          namespace: this.vm.metadata!.namespace,
          labels: { ...template?.metadata?.labels, [LABEL_VM_NAME]: this.vm.metadata!.name! },
          ownerReferences: [
            {
              apiVersion: VIRTUAL_MACHINES.apiVersion,
              kind: VIRTUAL_MACHINES.kind,
              name: this.vm.metadata!.name!,
              uid: this.vm.metadata!.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: template?.spec ?? {},
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      return this.host.client.get<VmiObject>(
        VIRTUAL_MACHINE_INSTANCES,
        this.vm.metadata!.name!,
        this.vm.metadata!.namespace,
      );
    }
  }

  private async deleteVmi(vmi: VmiObject): Promise<void> {
    try {
      await this.host.client.delete(
        VIRTUAL_MACHINE_INSTANCES,
        vmi.metadata!.name!,
        vmi.metadata!.namespace,
        { uid: vmi.metadata!.uid },
      );
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  /** The VM's Ready condition follows its VMI's (syncReadyConditionFromVMI). */
  private async status(
    strategy: string,
    printableStatus: string,
    vmi: VmiObject | undefined,
    stateChangeRequests: { action: string }[] = [],
  ): Promise<void> {
    const vmiReady = vmi?.status?.conditions?.find((c) => c.type === 'Ready');
    const ready = printableStatus === 'Running' && vmiReady?.status === 'True';
    await writeStatus(this.host.client, VIRTUAL_MACHINES, this.vm, {
      ...this.vm.status,
      stateChangeRequests: stateChangeRequests.length ? stateChangeRequests : undefined,
      printableStatus,
      ready,
      created: !!vmi,
      // Synced from the first VMI on (updateStatus): before that a RerunOnFailure VM starts.
      ...(vmi || this.vm.status?.runStrategy ? { runStrategy: strategy } : {}),
      conditions: withTransitions(this.vm.status?.conditions, [readyCondition(ready, vmi)]),
    });
  }
}

/**
 * Whether the VMI's launcher pod fits no node (kubevirt pkg/virt-controller/watch/vm/vm.go,
 * isVirtualMachineStatusUnschedulable): the VM shows ErrorUnschedulable.
 */
function unschedulable(vmi: VmiObject): boolean {
  return !!vmi.status?.conditions?.some(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  );
}

/** What a VM under Manual shows for the VMI it has. */
function printable(vmi: VmiObject): string {
  if (vmi.metadata?.deletionTimestamp) return 'Stopping';
  const phase = vmi.status?.phase;
  return phase === 'Running'
    ? 'Running'
    : phase === 'Succeeded' || phase === 'Failed'
      ? 'Stopped'
      : 'Starting';
}

/** The VM's Ready condition from its VMI's. */
function readyCondition(
  ready: boolean,
  vmi: VmiObject | undefined,
): Omit<Condition, 'lastTransitionTime'> {
  if (ready) return { type: 'Ready', status: 'True', reason: '', message: '' };
  if (!vmi)
    return {
      type: 'Ready',
      status: 'False',
      reason: 'VMINotExists',
      message: 'VMI does not exist',
    };
  const vmiReady = vmi.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    type: 'Ready',
    status: 'False',
    reason: vmiReady?.reason || 'GuestNotRunning',
    message: vmiReady?.message || 'Guest VM is not reported as running',
  };
}
