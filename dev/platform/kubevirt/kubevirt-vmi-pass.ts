import { randomBytes } from 'node:crypto';
import { PODS, PVCS } from '../../../client/api/core-resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import type { PersistentVolumeClaim, Pod } from '../../../operator/kube/workloads.js';
import type { SimulatorHost } from '../host/simulator-host.js';
import { ownerKeys } from '../../../operator/runtime/owner-keys.js';
import type { DataVolumeObject, PodStatusIp, VmiObject } from '../host/platform-kinds.js';
import {
  DATA_VOLUMES,
  LABEL_VM_NAME,
  VIRTUAL_MACHINE_INSTANCES,
  timestamp,
} from '../host/platform-kinds.js';
import {
  claimVolumes,
  pvcVolumeClaims,
  dataVolumeFailed,
  dataVolumeNames,
  dataVolumesReady,
  dataVolumesReadyCondition,
} from './kubevirt-volumes.js';
import { withTransitions, writeStatus } from '../host/platform-status.js';
import type { Condition } from '../host/platform-kinds.js';
import { launcherPlacement, launcherRequests } from '../scheduling/launcher-resources.js';
import type { GuestBooter, SimulatedKubeVirtOptions } from './vmi-guests.js';

type LauncherPod = Pod & PodStatusIp & { status?: { conditions?: Condition[] } };

const LAUNCHER_IMAGE = 'registry.example.test/kubevirt/virt-launcher:simulated';
const CREATED_BY = 'kubevirt.io/created-by';
/**
 * The non-root launcher's security, as virt-controller's template service gives it
 * (pkg/virt-controller/services/template.go): qemu's user, no privilege escalation, every
 * capability dropped but NET_BIND_SERVICE, and the seccomp profile virt-handler installs. It
 * passes the restricted Pod Security Standard, so VMs run in restricted namespaces (the
 * operator's, where the bundle builds' VMs live) as they do on the platform.
 */
const LAUNCHER_POD_SECURITY = {
  runAsUser: 107,
  runAsGroup: 107,
  fsGroup: 107,
  runAsNonRoot: true,
  seccompProfile: { type: 'Localhost', localhostProfile: 'kubevirt/kubevirt.json' },
};
const LAUNCHER_CONTAINER_SECURITY = {
  allowPrivilegeEscalation: false,
  privileged: false,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
};
const suffix = (): string =>
  Array.from(randomBytes(5), (byte) => 'bcdfghjklmnpqrstvwxz2456789'[byte % 27]).join('');

/**
 * One pass of virt-controller's VMI controller, virt-handler and the launcher pod's kubelet for a
 * VMI: it waits in Pending (DataVolumesReady=False) until its DataVolumes have Succeeded, fails
 * when one has Failed, then gets a launcher pod that the platform's scheduler places, and goes
 * Scheduling (with the pod's PodScheduled=False condition while it fits no node), Scheduled once
 * the pod is bound, and Running with its guest's IP once the guest is up. A VMI that ran and lost its pod has Failed. The status is
 * written with the VMI itself: KubeVirt's VMI CRD has no status subresource.
 */
export class VmiPass {
  private readonly namespace: string;
  private readonly name: string;

  constructor(
    private readonly host: SimulatorHost,
    private readonly options: SimulatedKubeVirtOptions,
    private readonly booter: GuestBooter,
    private readonly key: string,
  ) {
    [this.namespace, this.name] = key.split('/') as [string, string];
  }

  async run(): Promise<void> {
    const vmi = this.host.informer<VmiObject>(VIRTUAL_MACHINE_INSTANCES).get(this.key);
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
    const pods = this.host
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

  /** Pending → Scheduling → Scheduled → Running (with the guest's IP once it is up). */
  private async advance(vmi: VmiObject, pods: LauncherPod[]): Promise<void> {
    const uid = vmi.metadata!.uid!;
    const phase = vmi.status?.phase ?? '';
    const pod = pods[0];
    if (!pod) return this.withoutPod(vmi, phase);
    if (this.booter.state(uid) === 'off') {
      // The domain shut down from inside: the VMI has Succeeded, its launcher pod completed.
      await this.podCompleted(pod);
      return this.status(vmi, {
        phase: 'Succeeded',
        reason: 'GuestShutdown',
        nodeName: pod.spec.nodeName,
      });
    }
    if (!pod.spec.nodeName) return this.waitingForNode(vmi, pod);
    const address = this.options.guests.address(uid, vmi);
    if (pod.status?.phase !== 'Running') await this.podRunning(pod, address);
    const nodeName = pod.spec.nodeName;
    if (phase === 'Pending' || phase === 'Scheduling' || !phase)
      return this.status(vmi, { phase: 'Scheduled', nodeName });
    if (this.options.getsIp && !this.options.getsIp(vmi))
      return this.status(vmi, { phase: 'Running', ready: true, nodeName });
    this.booter.boot(this.key, vmi);
    const guest = this.booter.state(uid);
    if (guest === 'failed')
      return this.status(vmi, { phase: 'Failed', reason: 'GuestFailed', nodeName });
    if (guest === 'up')
      return this.status(vmi, { phase: 'Running', ready: true, address, nodeName });
  }

  /**
   * A launcher pod the scheduler has not bound: the VMI stays Scheduling, and carries the pod's
   * PodScheduled=False condition (kubevirt pkg/virt-controller/watch/vmi/lifecycle.go,
   * updateStatus: "Add PodScheduled False condition to the VM").
   */
  private async waitingForNode(vmi: VmiObject, pod: LauncherPod): Promise<void> {
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    return this.status(vmi, {
      phase: 'Scheduling',
      ...(scheduled?.status === 'False' ? { scheduled } : {}),
    });
  }

  private async withoutPod(vmi: VmiObject, phase: string): Promise<void> {
    // A VMI that ran loses its pod: it has failed (the VM starts a new one).
    if (phase === 'Scheduled' || phase === 'Running')
      return this.status(vmi, { phase: 'Failed', reason: 'PodDeleted' });
    // No launcher pod before every DataVolume is ready (lifecycle.go, areDataVolumesReady); an
    // unprocessed VMI with a Failed DataVolume fails (updateStatus, hasFailedDataVolume).
    const volumes = this.dataVolumes(vmi);
    if (dataVolumeFailed(volumes))
      return this.status(vmi, { phase: 'Failed', reason: 'DataVolumeFailed' });
    if (!dataVolumesReady(volumes)) return this.status(vmi, { phase: 'Pending' });
    // A persistentVolumeClaim volume's claim must exist and be Bound before the pod can start
    // (the launcher pod would stay Pending; KubeVirt reports FailedPvcNotFound for a missing one).
    const claims = this.host.informer<PersistentVolumeClaim>(PVCS);
    if (
      pvcVolumeClaims(vmi.spec).some(
        (c) => claims.get(`${this.namespace}/${c}`)?.status?.phase !== 'Bound',
      )
    )
      return this.status(vmi, { phase: 'Pending' });
    await this.createPod(vmi);
    return this.status(vmi, { phase: 'Scheduling' });
  }

  private async createPod(vmi: VmiObject): Promise<void> {
    const vmName = vmi.metadata?.labels?.[LABEL_VM_NAME] ?? this.name;
    await this.host.client.create<Pod>(PODS, {
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
      // No nodeName: the platform's scheduler places it, by what virt-controller's template
      // service would make it ask for (launcherRequests, launcherPlacement).
      spec: {
        ...launcherPlacement(vmi.spec),
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        securityContext: LAUNCHER_POD_SECURITY,
        // virt-controller's template service mounts every claim-backed volume into the compute
        // container: what CDI's "source in use" check (GetPodsUsingPVCs) sees.
        containers: [
          {
            name: 'compute',
            image: LAUNCHER_IMAGE,
            securityContext: LAUNCHER_CONTAINER_SECURITY,
            resources: { requests: launcherRequests(vmi.spec) },
            volumeMounts: claimVolumes(vmi.spec).map((v) => ({
              name: v.volume,
              mountPath: `/var/run/kubevirt-private/vmi-disks/${v.volume}`,
              readOnly: v.readOnly,
            })),
          } as Pod['spec']['containers'][number],
        ],
        volumes: claimVolumes(vmi.spec).map((v) => ({
          name: v.volume,
          persistentVolumeClaim: { claimName: v.claim, readOnly: v.readOnly },
        })),
      },
    });
  }

  /** The kubelet's report for a started launcher pod: Running, ready, at the VMI's address. */
  private async podRunning(pod: LauncherPod, address: string): Promise<void> {
    const now = timestamp();
    await this.host.client.patch(
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
            ...(pod.status?.conditions ?? []).filter((c) => c.type === 'PodScheduled'),
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

  /** The kubelet's report for a launcher pod whose qemu exited after the guest's poweroff. */
  private async podCompleted(pod: LauncherPod): Promise<void> {
    if (pod.status?.phase === 'Succeeded') return;
    const now = timestamp();
    await this.host.client.patch(
      PODS,
      { name: pod.metadata!.name!, namespace: this.namespace, subresource: 'status' },
      {
        status: {
          phase: 'Succeeded',
          conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: now }],
          containerStatuses: [
            {
              name: 'compute',
              image: LAUNCHER_IMAGE,
              imageID: `local://${LAUNCHER_IMAGE}`,
              ready: false,
              started: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: now } },
            },
          ],
        },
      },
    );
  }

  /** The kubelet's part in a launcher pod's deletion: it is gone at once (nothing to drain). */
  private async removePod(pod: LauncherPod): Promise<void> {
    try {
      await this.host.client.delete(PODS, pod.metadata!.name!, this.namespace, {
        uid: pod.metadata!.uid,
        gracePeriodSeconds: 0,
      });
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  private dataVolumes(vmi: VmiObject): (DataVolumeObject | undefined)[] {
    const cache = this.host.informer<DataVolumeObject>(DATA_VOLUMES);
    return dataVolumeNames(vmi.spec).map((name) => cache.get(`${this.namespace}/${name}`));
  }

  private async status(
    vmi: VmiObject,
    wanted: {
      phase: string;
      ready?: boolean;
      address?: string;
      reason?: string;
      nodeName?: string;
      scheduled?: Condition;
    },
  ): Promise<void> {
    const ip = wanted.address;
    const volumes = dataVolumesReadyCondition(this.dataVolumes(vmi));
    await writeStatus(
      this.host.client,
      VIRTUAL_MACHINE_INSTANCES,
      vmi,
      {
        ...vmi.status,
        phase: wanted.phase,
        nodeName: wanted.nodeName,
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
          ...(volumes ? [volumes] : []),
          ...(wanted.scheduled
            ? [
                {
                  type: 'PodScheduled',
                  status: 'False',
                  reason: wanted.scheduled.reason,
                  message: wanted.scheduled.message,
                },
              ]
            : []),
        ]),
      },
      { subresource: false },
    );
  }
}
