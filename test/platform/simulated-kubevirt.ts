import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { PODS } from '../../operator/api/core-resources.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../operator/kube/api-error.js';
import type { Pod } from '../../operator/kube/workloads.js';
import type { Controller } from '../../operator/runtime/controller.js';
import type { Manager } from '../../operator/runtime/manager.js';
import { simulatedManager } from './simulated-controller.js';
import { ownerKeys } from '../../operator/runtime/owner-keys.js';
import type {
  DataVolumeObject,
  PodStatusIp,
  VirtualMachineObject,
  VmiObject,
} from './kubevirt-resources.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
  timestamp,
} from './kubevirt-resources.js';
import { withTransitions, writeStatus } from './platform-status.js';

/** Where the simulated VMs' guests run: one per VMI, at an address of its own. */
export interface GuestHost {
  /** The VMI's address (its launcher pod's IP), the same for every call with its UID. */
  address(vmiUid: string): string;
  /** Boots the VMI's guest from its root disk folder (undefined: no disk); resolves once it is up. */
  boot(vmi: VmiObject, rootDisk: string | undefined): Promise<void>;
  /** Stops the guest of a VMI that is gone (no-op when it has none) and frees its address. */
  halt(vmiUid: string): Promise<void>;
}

export interface SimulatedKubeVirtOptions {
  kubeConfig: KubeConfig;
  /** VMs in other namespaces belong to other tests (one control plane is shared). */
  servesNamespace: (namespace: string) => boolean;
  guests: GuestHost;
  /** The node launcher pods run on. */
  nodeName: string;
  /** The folder of a Bound claim's volume (the simulated storage of its namespace). */
  volumePath: (namespace: string, claim: string) => string | undefined;
  /** Failure injection: a VMI for which this is false runs, but never reports an IP (no guest). */
  getsIp?: (vmi: VmiObject) => boolean;
}

type LauncherPod = Pod & PodStatusIp;

const LAUNCHER_IMAGE = 'registry.example.test/kubevirt/virt-launcher:simulated';
const CREATED_BY = 'kubevirt.io/created-by';
const suffix = (): string =>
  Array.from(randomBytes(5), (byte) => 'bcdfghjklmnpqrstvwxz2456789'[byte % 27]).join('');

function runStrategy(vm: VirtualMachineObject): string {
  return vm.spec?.runStrategy ?? (vm.spec?.running ? 'Always' : 'Halted');
}

function dataVolumeNames(spec: VmiObject['spec']): string[] {
  return (spec?.volumes ?? []).flatMap((v) => (v.dataVolume?.name ? [v.dataVolume.name] : []));
}

const isReady = (vmi: VmiObject): boolean =>
  !!vmi.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

/**
 * KubeVirt simulated: virt-controller's VM and VMI controllers, virt-handler and the launcher
 * pod's kubelet in one. A VM with runStrategy Always gets a VMI of its name (controlled by the VM,
 * with the template's labels and spec) once every DataVolume it mounts has Succeeded; the VMI gets
 * a launcher pod `virt-launcher-<vm>-<suffix>` (labels kubevirt.io=virt-launcher and
 * vm.kubevirt.io/name, controlled by the VMI) that runs with the VMI's address as its pod IP; the
 * VMI goes Scheduling, Scheduled, and Running with that IP once its guest is up. runStrategy
 * Halted deletes the VMI (its pod and guest go with it); a VMI that is deleted, fails or loses its
 * pod under Always is replaced by a new one (a new UID). The VM reports ready, created,
 * printableStatus and runStrategy as KubeVirt does.
 */
export class SimulatedKubeVirt {
  /** Problems met while booting guests, for test diagnostics. */
  readonly problems: string[] = [];

  private constructor(private readonly manager: Manager) {}

  static async start(options: SimulatedKubeVirtOptions): Promise<SimulatedKubeVirt> {
    const manager = simulatedManager(options.kubeConfig, {
      retryBackoff: { baseMs: 50, maxMs: 2000, jitter: 0.1 },
    });
    const kubevirt = new SimulatedKubeVirt(manager);
    const vms = manager.informer<VirtualMachineObject>(VIRTUAL_MACHINES);
    manager.addController({
      name: 'simulated-kubevirt-vms',
      forType: VIRTUAL_MACHINES,
      owns: [VIRTUAL_MACHINE_INSTANCES],
      watches: [
        {
          type: DATA_VOLUMES,
          map: (dv) =>
            vms
              .list(
                (vm) =>
                  vm.metadata?.namespace === dv.metadata?.namespace &&
                  dataVolumeNames(vm.spec?.template?.spec).includes(dv.metadata!.name!),
              )
              .map((vm) => keyOf(vm.metadata!.namespace!, vm.metadata!.name!)),
        },
      ],
      reconcile: async (key) => {
        const vm = vms.get(key);
        if (!vm || vm.metadata?.deletionTimestamp) return;
        if (!options.servesNamespace(vm.metadata!.namespace!)) return;
        await new VmPass(manager, vm).run();
      },
    });
    const holder: { controller?: Controller } = {};
    const booter = new GuestBooter(options, kubevirt.problems, (key) =>
      holder.controller?.enqueue(key),
    );
    holder.controller = manager.addController({
      name: 'simulated-kubevirt-vmis',
      forType: VIRTUAL_MACHINE_INSTANCES,
      owns: [PODS],
      reconcile: async (key) => {
        const [namespace] = key.split('/') as [string];
        if (!options.servesNamespace(namespace)) return;
        await new VmiPass(manager, options, booter, key).run();
      },
    });
    kubevirt.booter = booter;
    await manager.start();
    return kubevirt;
  }

  private booter?: GuestBooter;

  async stop(): Promise<void> {
    await this.manager.stop();
    await this.booter?.haltAll();
  }
}

/** The guests being booted and running, by VMI key and UID. */
class GuestBooter {
  private readonly guests = new Map<string, { key: string; state: 'booting' | 'up' | 'failed' }>();

  constructor(
    private readonly options: SimulatedKubeVirtOptions,
    private readonly problems: string[],
    private readonly wake: (key: string) => void,
  ) {}

  state(uid: string): 'booting' | 'up' | 'failed' | undefined {
    return this.guests.get(uid)?.state;
  }

  boot(key: string, vmi: VmiObject): void {
    const uid = vmi.metadata!.uid!;
    if (this.guests.has(uid)) return;
    const entry = { key, state: 'booting' as 'booting' | 'up' | 'failed' };
    this.guests.set(uid, entry);
    const disk = dataVolumeNames(vmi.spec)[0];
    const folder = disk && this.options.volumePath(vmi.metadata!.namespace!, disk);
    this.options.guests.boot(vmi, folder || undefined).then(
      () => {
        entry.state = 'up';
        this.wake(key);
      },
      (error: unknown) => {
        entry.state = 'failed';
        this.problems.push(`guest of VMI ${key} (${uid}): ${String(error)}`);
        this.wake(key);
      },
    );
  }

  /** Halts the guests of `key` other than the one of `currentUid`. */
  async haltOthers(key: string, currentUid: string | undefined): Promise<void> {
    for (const [uid, entry] of [...this.guests]) {
      if (entry.key !== key || uid === currentUid) continue;
      this.guests.delete(uid);
      await this.options.guests.halt(uid);
    }
  }

  async haltAll(): Promise<void> {
    for (const uid of [...this.guests.keys()]) {
      this.guests.delete(uid);
      await this.options.guests.halt(uid).catch(() => undefined);
    }
  }
}

class VmPass {
  constructor(
    private readonly manager: Manager,
    private readonly vm: VirtualMachineObject,
  ) {}

  private get key(): string {
    return keyOf(this.vm.metadata!.namespace!, this.vm.metadata!.name!);
  }

  async run(): Promise<void> {
    const strategy = runStrategy(this.vm);
    const vmi = this.manager.informer<VmiObject>(VIRTUAL_MACHINE_INSTANCES).get(this.key);
    const ours = vmi?.metadata?.ownerReferences?.some((r) => r.uid === this.vm.metadata!.uid);
    if (vmi && !ours) return this.status(strategy, 'Stopped', false, vmi); // not this VM's VMI
    if (strategy === 'Always') return this.keepRunning(vmi);
    if (vmi && !vmi.metadata?.deletionTimestamp) await this.deleteVmi(vmi);
    return this.status(strategy, vmi ? 'Stopping' : 'Stopped', false, vmi);
  }

  /** runStrategy Always: a VMI once the disks are there, replaced when it has ended. */
  private async keepRunning(current: VmiObject | undefined): Promise<void> {
    let vmi = current;
    if (vmi && ['Failed', 'Succeeded'].includes(vmi.status?.phase ?? '')) {
      await this.deleteVmi(vmi); // restarted: the next pass creates a new VMI
      return this.status('Always', 'Starting', false, vmi);
    }
    if (!vmi) {
      const volumes = this.dataVolumes();
      if (volumes.some((dv) => dv?.status?.phase === 'Failed'))
        return this.status('Always', 'DataVolumeError', false, undefined);
      if (volumes.some((dv) => dv?.status?.phase !== 'Succeeded'))
        return this.status('Always', 'Provisioning', false, undefined);
      vmi = await this.createVmi();
    }
    const running = vmi.status?.phase === 'Running' && !vmi.metadata?.deletionTimestamp;
    const ready = running && isReady(vmi);
    return this.status('Always', running ? 'Running' : 'Starting', ready, vmi);
  }

  private dataVolumes(): (DataVolumeObject | undefined)[] {
    const cache = this.manager.informer<DataVolumeObject>(DATA_VOLUMES);
    return dataVolumeNames(this.vm.spec?.template?.spec).map((name) =>
      cache.get(keyOf(this.vm.metadata!.namespace!, name)),
    );
  }

  private async createVmi(): Promise<VmiObject> {
    const template = this.vm.spec?.template;
    try {
      return await this.manager.client.create<VmiObject>(VIRTUAL_MACHINE_INSTANCES, {
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
      return this.manager.client.get<VmiObject>(
        VIRTUAL_MACHINE_INSTANCES,
        this.vm.metadata!.name!,
        this.vm.metadata!.namespace,
      );
    }
  }

  private async deleteVmi(vmi: VmiObject): Promise<void> {
    try {
      await this.manager.client.delete(
        VIRTUAL_MACHINE_INSTANCES,
        vmi.metadata!.name!,
        vmi.metadata!.namespace,
        { uid: vmi.metadata!.uid },
      );
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private async status(
    strategy: string,
    printableStatus: string,
    ready: boolean,
    vmi: VmiObject | undefined,
  ): Promise<void> {
    const failure = printableStatus === 'DataVolumeError';
    await writeStatus(this.manager.client, VIRTUAL_MACHINES, this.vm, {
      ...this.vm.status,
      printableStatus,
      ready,
      created: !!vmi,
      runStrategy: strategy,
      conditions: withTransitions(this.vm.status?.conditions, [
        ready
          ? { type: 'Ready', status: 'True', reason: '', message: '' }
          : {
              type: 'Ready',
              status: 'False',
              reason: vmi ? 'VMINotReady' : failure ? 'DataVolumeError' : 'VMINotExists',
              message: vmi ? 'VMI is not ready' : 'VMI does not exist',
            },
      ]),
    });
  }
}

class VmiPass {
  private readonly namespace: string;
  private readonly name: string;

  constructor(
    private readonly manager: Manager,
    private readonly options: SimulatedKubeVirtOptions,
    private readonly booter: GuestBooter,
    private readonly key: string,
  ) {
    [this.namespace, this.name] = key.split('/') as [string, string];
  }

  async run(): Promise<void> {
    const vmi = this.manager.informer<VmiObject>(VIRTUAL_MACHINE_INSTANCES).get(this.key);
    const live = vmi && !vmi.metadata?.deletionTimestamp ? vmi : undefined;
    const uid = live?.metadata?.uid;
    // Guests of VMIs that are gone (or replaced) stop; pods being deleted are removed (kubelet).
    await this.booter.haltOthers(this.key, uid);
    const pods = await this.removeStalePods(uid);
    if (!live || ['Failed', 'Succeeded'].includes(live.status?.phase ?? '')) return;
    await this.advance(live, pods);
  }

  /** The VMI's launcher pods; those being deleted or of an older VMI are removed. */
  private async removeStalePods(uid: string | undefined): Promise<LauncherPod[]> {
    const pods = this.manager
      .informer<LauncherPod>(PODS)
      .list(
        (pod) =>
          pod.metadata?.namespace === this.namespace &&
          ownerKeys(pod, VIRTUAL_MACHINE_INSTANCES).includes(this.key),
      );
    const current: LauncherPod[] = [];
    for (const pod of pods)
      if (pod.metadata?.deletionTimestamp || pod.metadata?.labels?.[CREATED_BY] !== uid)
        await this.removePod(pod);
      else current.push(pod);
    return current;
  }

  /** Scheduling → Scheduled → Running (with the guest's IP once it is up). */
  private async advance(vmi: VmiObject, pods: LauncherPod[]): Promise<void> {
    const uid = vmi.metadata!.uid!;
    const phase = vmi.status?.phase ?? '';
    const pod = pods[0];
    if (!pod) {
      // A VMI that ran loses its pod: it has failed (the VM starts a new one).
      if (phase === 'Scheduled' || phase === 'Running')
        return this.status(vmi, { phase: 'Failed', reason: 'PodDeleted' });
      await this.createPod(vmi);
      return this.status(vmi, { phase: 'Scheduling' });
    }
    const address = this.options.guests.address(uid);
    if (pod.status?.phase !== 'Running') await this.podRunning(pod, address);
    if (phase === 'Pending' || phase === 'Scheduling' || !phase)
      return this.status(vmi, { phase: 'Scheduled' });
    if (this.options.getsIp && !this.options.getsIp(vmi))
      return this.status(vmi, { phase: 'Running', ready: true });
    this.booter.boot(this.key, vmi);
    const guest = this.booter.state(uid);
    if (guest === 'failed') return this.status(vmi, { phase: 'Failed', reason: 'GuestFailed' });
    if (guest === 'up') return this.status(vmi, { phase: 'Running', ready: true, address });
  }

  private async createPod(vmi: VmiObject): Promise<void> {
    const vmName = vmi.metadata?.labels?.[LABEL_VM_NAME] ?? this.name;
    await this.manager.client.create<Pod>(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `virt-launcher-${vmName}-${suffix()}`,
        namespace: this.namespace,
        labels: {
          ...vmi.metadata?.labels,
          'kubevirt.io': 'virt-launcher',
          [LABEL_VM_NAME]: vmName,
          [CREATED_BY]: vmi.metadata!.uid!,
        },
        ownerReferences: [
          {
            apiVersion: VIRTUAL_MACHINE_INSTANCES.apiVersion,
            kind: VIRTUAL_MACHINE_INSTANCES.kind,
            name: this.name,
            uid: vmi.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        nodeName: this.options.nodeName,
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        containers: [{ name: 'compute', image: LAUNCHER_IMAGE }],
      },
    });
  }

  /** The kubelet's report for a started launcher pod: Running, ready, at the VMI's address. */
  private async podRunning(pod: LauncherPod, address: string): Promise<void> {
    const now = timestamp();
    await this.manager.client.patch(
      PODS,
      { name: pod.metadata!.name!, namespace: this.namespace, subresource: 'status' },
      {
        status: {
          phase: 'Running',
          startTime: now,
          podIP: address,
          podIPs: [{ ip: address }],
          hostIP: '127.0.0.1',
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
          ],
          containerStatuses: [
            {
              name: 'compute',
              image: LAUNCHER_IMAGE,
              imageID: `local://${LAUNCHER_IMAGE}`,
              ready: true,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: now } },
            },
          ],
        },
      },
    );
  }

  /** The kubelet's part in a launcher pod's deletion: it is gone at once (nothing to drain). */
  private async removePod(pod: LauncherPod): Promise<void> {
    try {
      await this.manager.client.delete(PODS, pod.metadata!.name!, this.namespace, {
        uid: pod.metadata!.uid,
        gracePeriodSeconds: 0,
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private async status(
    vmi: VmiObject,
    wanted: { phase: string; ready?: boolean; address?: string; reason?: string },
  ): Promise<void> {
    const ip = wanted.address;
    await writeStatus(this.manager.client, VIRTUAL_MACHINE_INSTANCES, vmi, {
      ...vmi.status,
      phase: wanted.phase,
      ...(wanted.phase === 'Scheduling' ? {} : { nodeName: this.options.nodeName }),
      interfaces:
        wanted.phase === 'Running'
          ? [
              ip
                ? {
                    name: 'default',
                    ipAddress: ip,
                    ipAddresses: [ip],
                    infoSource: 'domain, guest-agent',
                  }
                : { name: 'default', infoSource: 'domain' },
            ]
          : [],
      conditions: withTransitions(vmi.status?.conditions, [
        wanted.ready
          ? { type: 'Ready', status: 'True', reason: '', message: '' }
          : {
              type: 'Ready',
              status: 'False',
              reason: wanted.reason ?? 'GuestNotRunning',
              message: 'Guest VM is not reported as running',
            },
      ]),
    });
  }
}
