import { DATA_VOLUMES, VIRTUAL_MACHINES } from '../../../api/platform-resources.js';
import type { VmProfile } from '../../../api/vm-profile.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { ReconcileContext } from '../../../runtime/controller.js';
import type { InstanceApi } from '../core/instance-api.js';
import type { InstanceObjects } from '../core/instance-objects.js';
import { markReady } from '../core/mark-ready.js';
import { resolvePullSecret } from '../core/pull-secret.js';
import { InstanceFailure, Reason } from '../core/reasons.js';
import type { InstanceStatusDraft } from '../core/status-draft.js';
import type { Step } from '../core/steps.js';
import { RECORD } from '../core/steps.js';
import type { InstanceTimings } from '../core/timings.js';
import type { GuestApiProbe } from '../guest-api-probe.js';
import type { AgentDone } from './crc-agent.js';
import { agentDone, ensureAgentJob, existingAgentJob, inspectAgent } from './crc-agent.js';
import type { AgentCondition } from './crc-agent-diagnostics.js';
import { ensureAgentAccount, ensureHandoffGrant } from './crc-agent-rbac.js';
import type { DiskSource, SshKeyRef } from './crc-builders.js';
import { buildDataVolume, buildVirtualMachine } from './crc-builders.js';
import { diskFailure } from './crc-disk-failure.js';
import { bindBootKey, boundVmProfile, bundleSshKey, diskSource } from './crc-disk-source.js';
import { refusedBundle } from './crc-bundle-consumer.js';
import type { CrcEndpoint } from './crc-endpoint.js';
import { ensureCrcRoute, resolveCrcEndpoint } from './crc-endpoint.js';
import { crcGuestAccess, handoffRejection } from './crc-kubeconfig.js';
import { recordHostKey } from './crc-host-key.js';
import { ensureIdentitySecret } from './crc-identity-secret.js';
import { crcBundleName, crcDiskName, crcVmName } from './crc-naming.js';
import { ensureGuestNetworkPolicy } from './crc-network-policy.js';
import { ensureInstanceSshKey } from './crc-ssh-key.js';
import { runningVmi } from './crc-vmi.js';
import type { CrcWait } from './crc-wait.js';

const GUEST_API_READY = {
  type: 'GuestAPIReachable',
  status: 'True',
  reason: Reason.GuestAPIReady,
  message: 'guest API readiness check succeeded',
} as const;

/** What the steps of one pass learn and hand on to the steps after them. */
interface PassState {
  pullSecret?: string;
  manualKey?: string;
  disk?: { source: DiskSource; sshKey: SshKeyRef };
  profile?: VmProfile;
  endpoint?: CrcEndpoint;
  vmiUid?: string;
  address?: string;
  done?: AgentDone;
  agent?: AgentCondition;
  access?: GuestAccess;
  ocpVersion?: string;
}

/**
 * The ensure-steps of one crc pass, in order (docs/reference/instances.md#crc-provisioning,
 * docs/reference/instances.md#crc-readiness): the inputs, the endpoint, the disk and VM, the
 * agent's work for the running VMI, and the guest API answering on the external endpoint. The last
 * step publishes the kubeconfig and marks Ready.
 */
export class CrcSteps {
  constructor(
    private readonly api: InstanceApi,
    private readonly timings: InstanceTimings,
    private readonly probe: GuestApiProbe,
  ) {}

  /** The inputs are checked until the instance is Ready; what the guest needs, on every pass. */
  list(
    objects: InstanceObjects,
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Step<CrcWait>[] {
    const s: PassState = {};
    const instance = objects.instance;
    const ns = objects.namespace;
    const provisioning = !draft.wasReady;
    const pending = (message: string): CrcWait => ({ reason: Reason.CRCBackingPending, message });
    const backing = Reason.APIEndpointConflict;
    return [
      {
        name: 'pull secret',
        recordsOnly: true,
        run: async () => void (provisioning && (s.pullSecret = await resolvePullSecret(objects))),
      },
      {
        name: 'bundle key',
        recordsOnly: true,
        run: async () =>
          void (
            provisioning &&
            !crcBundleName(instance) &&
            (s.manualKey = await bundleSshKey(objects))
          ),
      },
      {
        name: 'bundle consumers',
        recordsOnly: true,
        run: () => (provisioning ? refusedBundle(objects) : undefined),
      },
      {
        name: 'boot key binding',
        conflict: backing,
        recordsOnly: true,
        run: () => (provisioning ? bindBootKey(objects, draft) : undefined),
      },
      {
        name: 'API endpoint',
        conflict: backing,
        recordsOnly: true,
        run: async () => {
          s.endpoint = await resolveCrcEndpoint(this.api, objects);
          const endpoint = `https://${s.endpoint.hostname}`;
          if (draft.status.apiEndpoint === endpoint) return undefined;
          // The identity Secret and the Route are issued for this host: it is durable first.
          draft.status.apiEndpoint = endpoint;
          return RECORD;
        },
      },
      {
        name: 'disk source',
        conflict: backing,
        run: async () => {
          // The VM profile first: a binding to one this operator does not know makes no disk.
          const bound = boundVmProfile(instance);
          if ('reason' in bound) return { ...bound, requeueAfterMs: this.timings.recheckMs };
          s.profile = bound.profile;
          s.disk = await diskSource(objects, s.manualKey);
        },
      },
      {
        name: 'DataVolume',
        conflict: backing,
        run: async () => {
          const disk = await objects.ensure(
            DATA_VOLUMES,
            buildDataVolume(instance, s.disk!.source),
          );
          if (disk.created)
            this.announce(
              draft,
              context,
              'DataVolumeCreated',
              `Created DataVolume ${ns}/${crcDiskName(instance)}`,
            );
          recordUid(draft, { dataVolumeUID: disk.object.metadata?.uid });
          // A disk CDI cannot fill fails the instance (a pool replaces it; a retry sees recovery).
          const failure = diskFailure(disk.object);
          if (failure) throw new InstanceFailure(Reason.DataVolumeFailed, failure);
        },
      },
      {
        name: 'VirtualMachine',
        conflict: backing,
        run: async () => {
          const vm = await objects.ensure(
            VIRTUAL_MACHINES,
            buildVirtualMachine(instance, s.profile),
          );
          if (vm.created)
            this.announce(
              draft,
              context,
              'VirtualMachineCreated',
              `Created VirtualMachine ${ns}/${crcVmName(instance)}`,
            );
          recordUid(draft, { vmUID: vm.object.metadata?.uid });
          if (!(vm.object.status as { ready?: boolean } | undefined)?.ready)
            return pending(`waiting for VirtualMachine ${ns}/${crcVmName(instance)} to be ready`);
          return undefined;
        },
      },
      {
        name: 'VirtualMachineInstance',
        conflict: backing,
        run: async () => {
          const vmi = await runningVmi(objects, draft);
          if ('reason' in vmi) return vmi;
          [s.vmiUid, s.address] = [vmi.uid, vmi.address];
          return undefined;
        },
      },
      {
        name: 'API Route',
        conflict: backing,
        run: async () => {
          // A deleted Route comes back with the host the identity was issued for.
          if ((await ensureCrcRoute(objects, s.endpoint!)) && draft.wasReady)
            this.announce(
              draft,
              context,
              'APIRouteRestored',
              `Restored API Route for ${s.endpoint!.hostname}`,
            );
        },
      },
      {
        name: 'agent permissions',
        conflict: backing,
        run: async () => {
          await ensureAgentAccount(this.api, objects);
          await ensureHandoffGrant(this.api, objects, s.vmiUid!);
        },
      },
      {
        name: 'identity Secret',
        conflict: backing,
        run: () => ensureIdentitySecret(objects, s.endpoint!.hostname, new Date(this.api.now())),
      },
      { name: 'instance SSH key', conflict: backing, run: () => ensureInstanceSshKey(objects) },
      {
        name: 'guest NetworkPolicy',
        conflict: backing,
        run: () => ensureGuestNetworkPolicy(this.api, objects),
      },
      { name: 'crc-agent', conflict: backing, run: () => this.agent(objects, draft, s, context) },
      { name: 'guest access', conflict: backing, run: () => this.guestAccess(objects, draft, s) },
      { name: 'guest API', run: () => this.guestApi(draft, s, context) },
      {
        name: 'published kubeconfig',
        run: async () => {
          draft.removeCondition('CRCAgent');
          draft.condition(GUEST_API_READY);
          const hostname = s.endpoint!.hostname;
          await markReady(
            this.api,
            draft,
            {
              access: s.access!,
              ocpVersion: s.ocpVersion!,
              apiEndpoint: `https://${hostname}`,
              becameReady: {
                reason: 'HandoffReceived',
                message: `crc-agent handoff received; guest API https://${hostname} answers`,
              },
            },
            context,
          );
        },
      },
    ];
  }

  /**
   * The agent is done with the VMI (its handoff, or the kubeconfig published from one); while it is
   * not, its Job runs and the CRCAgent condition says how
   * (docs/reference/instances.md#crc-agent-diagnostics).
   */
  private async agent(
    objects: InstanceObjects,
    draft: InstanceStatusDraft,
    s: PassState,
    context: ReconcileContext,
  ): Promise<CrcWait | undefined> {
    const vmiUid = s.vmiUid!;
    s.done = await agentDone(objects, vmiUid);
    if (!s.done && draft.wasReady)
      return {
        reason: Reason.KubeconfigUnavailable,
        message: 'published CRC kubeconfig is missing',
        requeueAfterMs: this.timings.recheckMs,
      };
    let job = s.done ? await existingAgentJob(objects, vmiUid) : undefined;
    if (!s.done) {
      const ensured = await ensureAgentJob(objects, {
        image: this.api.settings.crcAgentImage,
        vmiUid,
        vmiAddress: s.address!,
        hostname: s.endpoint!.hostname,
        pullSecretName: s.pullSecret ?? (await resolvePullSecret(objects)),
        sshKey: s.disk!.sshKey,
      });
      job = ensured.job;
      if (ensured.created)
        this.announce(
          draft,
          context,
          'AgentJobStarted',
          `Started crc-agent Job ${objects.namespace}/${job.metadata.name} for VMI ${vmiUid}`,
        );
    }
    recordHostKey(objects, draft, vmiUid);
    if (!job) return undefined;
    const handoffGraceMs = this.timings.handoffGraceMs;
    s.agent = await inspectAgent(this.api, objects, job, {
      handoffReceived: !!s.done,
      handoffGraceMs,
    });
    if (s.done) return undefined;
    return {
      reason: s.agent.reason,
      message: s.agent.message,
      agent: s.agent,
      requeueAfterMs: s.agent.reason === 'HandoffPending' ? handoffGraceMs : undefined,
    };
  }

  /** The operator's own access to the guest, and a handoff kubeconfig that agrees with it. */
  private async guestAccess(
    objects: InstanceObjects,
    draft: InstanceStatusDraft,
    s: PassState,
  ): Promise<CrcWait | undefined> {
    const access = await crcGuestAccess(objects, s.endpoint!.hostname, new Date(this.api.now()));
    if ('unavailable' in access) {
      if (!draft.wasReady) throw new Error(access.unavailable);
      return this.unavailable(Reason.KubeconfigUnavailable, access.unavailable);
    }
    s.access = access;
    s.ocpVersion = objects.instance.status?.ocpVersion ?? '';
    if (!s.done || !('handoff' in s.done)) return undefined;
    const { handoff } = s.done;
    const rejected = handoffRejection(objects, s.vmiUid!, handoff.kubeconfig, access);
    if (rejected) return { reason: Reason.KubeconfigRejected, message: rejected, agent: s.agent };
    s.ocpVersion = handoff.ocpVersion;
    return undefined;
  }

  /** The guest API answers the operator's own credentials on the external endpoint. */
  private async guestApi(
    draft: InstanceStatusDraft,
    s: PassState,
    context: ReconcileContext,
  ): Promise<CrcWait | undefined> {
    try {
      await this.probe(s.access!);
      return undefined;
    } catch (error) {
      const message = (error as Error).message;
      if (draft.wasReady)
        return this.unavailable(
          Reason.GuestAPIUnavailable,
          `guest API readiness check failed: ${message}`,
        );
      context.logger.info({ err: message }, 'CRC guest API is not externally ready yet');
      return {
        reason: Reason.GuestAPIUnavailable,
        message:
          'CRC agent handoff received; guest API is not externally ready yet (see manager logs)',
        agent: s.agent,
        requeueAfterMs: this.timings.recheckMs,
      };
    }
  }

  /**
   * "API unavailable" (docs/reference/instances.md#crc-readiness): back to Provisioning, keeping
   * the handoff and the Job.
   */
  private unavailable(reason: string, message: string): CrcWait {
    return { reason, message, requeueAfterMs: this.timings.recheckMs };
  }

  private announce(
    draft: InstanceStatusDraft,
    context: ReconcileContext,
    reason: string,
    message: string,
  ): void {
    context.logger.info({ reason }, message);
    draft.announce('Normal', reason, message);
  }
}

/**
 * The UID of an object the pass ensured, recorded in the same pass as the next would
 * (docs/reference/instances.md#crc-ownership).
 */
function recordUid(
  draft: InstanceStatusDraft,
  uid: { dataVolumeUID?: string } | { vmUID?: string },
): void {
  if (Object.values(uid)[0]) draft.status.crc = { ...draft.status.crc, ...uid };
}
