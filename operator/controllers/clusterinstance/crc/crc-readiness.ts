import { JOBS } from '../../../api/core-resources.js';
import { SECRETS } from '../../../api/resources.js';
import { VIRTUAL_MACHINE_INSTANCES } from '../../../api/platform-resources.js';
import type { Secret } from '../../../kube/workloads.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { Manager } from '../../../runtime/manager.js';
import type { GuestAccess } from '../../../kube/strict-kubeconfig.js';
import type { GuestApiProbe } from '../guest-api-probe.js';
import type { PlatformObject } from '../hcp/hcp-builders.js';
import { kubeconfigSecretName } from '../hcp/hcp-naming.js';
import { upsertInstanceKubeconfig } from '../instance-kubeconfig.js';
import type { InstanceStatusDraft } from '../instance-status.js';
import { announce, InstanceFailure, Reason, writeInstanceStatus } from '../instance-status.js';
import { conflictAs } from '../ownership-conflict.js';
import { ensureAgentRbac } from './crc-agent-rbac.js';
import { BootKeyError, ensureBootKey } from './crc-boot-key.js';
import { ensureCrcEndpoint } from './crc-endpoint.js';
import type { Handoff } from './crc-handoff.js';
import { handoffFrom } from './crc-handoff.js';
import { crcGuestAccess, handoffRejection } from './crc-kubeconfig.js';
import {
  agentJobName,
  crcBundleName,
  crcDiskName,
  crcVmName,
  handoffSecretName,
} from './crc-naming.js';
import type { CrcObjects } from './crc-objects.js';
import { controlledBy } from './crc-ownership.js';

/**
 * Nothing reports when these change, so they are looked at again after this long: a
 * BootKeyUnavailable wait and the guest API.
 */
export const RECHECK_MS = 20_000;
/** The Ready health check (spec §2.3.3). */
const READY_RECHECK_MS = 60_000;

/** What a Ready instance publishes: the operator's own access to the guest, and its version. */
export interface Ready {
  access: GuestAccess;
  ocpVersion: string;
  hostname: string;
}

const GUEST_API_READY = {
  type: 'GuestAPIReachable',
  status: 'True',
  reason: Reason.GuestAPIReady,
  message: 'guest API readiness check succeeded',
} as const;

/**
 * Becoming Ready and staying so (spec §2.3.1, §2.3.3) for a crc instance: publishing the
 * handoff's kubeconfig, the periodic pass over a Ready instance (agent permissions, boot key, the
 * VMI the handoff was made for, the guest API), and invalidating readiness when one of them fails.
 */
export class CrcReadiness {
  constructor(
    private readonly manager: Manager,
    private readonly probe: GuestApiProbe,
  ) {}

  /** Mark ready (spec §2.3.1): the canonical kubeconfig Secret, then the status. */
  async markReady(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    ready: Ready,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const instance = objects.instance;
    const published = await conflictAs(Reason.APIEndpointConflict, () =>
      upsertInstanceKubeconfig(this.manager, instance, { ...ready, context }),
    );
    draft.removeCondition('CRCAgent');
    draft.condition(GUEST_API_READY);
    draft.ready({
      ocpVersion: ready.ocpVersion,
      apiEndpoint: `https://${ready.hostname}`,
      kubeconfig: published,
    });
    const wasReady = instance.status?.phase === 'Ready';
    await writeInstanceStatus(this.manager, draft);
    if (!wasReady) {
      context.logger.info({ endpoint: `https://${ready.hostname}` }, 'ClusterInstance is Ready');
      announce(
        this.manager,
        instance,
        'HandoffReceived',
        `crc-agent handoff received; guest API https://${ready.hostname} answers`,
        context,
      );
    }
    return {};
  }

  /** spec §2.3.3: a Ready instance stays Ready only while its VMI and guest API do. */
  async pass(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const unusable =
      (await this.readyKeyCheck(objects, draft)) ?? (await this.readyVmiCheck(objects, draft));
    if (unusable) return unusable;
    // A deleted Route comes back with the host the identity was issued for.
    const endpoint = await conflictAs(Reason.APIEndpointConflict, () =>
      ensureCrcEndpoint(this.manager, objects),
    );
    if (endpoint.routeCreated)
      announce(
        this.manager,
        objects.instance,
        'APIRouteRestored',
        `Restored API Route for ${endpoint.hostname}`,
        context,
      );
    return this.healthCheck(objects, draft, endpoint.hostname, context);
  }

  /** Agent RBAC and, for turnkey instances, the boot key binding still hold. */
  private async readyKeyCheck(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
  ): Promise<ReconcileResult | undefined> {
    const instance = objects.instance;
    try {
      await ensureAgentRbac(this.manager, objects, instance.status?.crc?.vmiUID);
    } catch (error) {
      throw new Error(`reconciling CRC agent permissions: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const bundleName = crcBundleName(instance);
    if (!bundleName) return undefined;
    const binding = instance.status?.crc?.bootKey;
    if (!binding)
      return this.apiUnavailable(
        draft,
        Reason.BootKeyUnavailable,
        'CRC boot disk/key binding is missing; automatic recovery is unsafe',
      );
    try {
      await ensureBootKey(objects, bundleName, binding);
      return undefined;
    } catch (error) {
      if (error instanceof BootKeyError)
        return this.apiUnavailable(draft, Reason.BootKeyUnavailable, error.message);
      throw error;
    }
  }

  /** The VMI the handoff was made for still runs; else readiness is invalidated. */
  private async readyVmiCheck(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
  ): Promise<ReconcileResult | undefined> {
    const recorded = objects.instance.status?.crc?.vmiUID;
    const vmi = objects.cached<PlatformObject>(
      VIRTUAL_MACHINE_INSTANCES,
      crcVmName(objects.instance),
    );
    const notRunning = 'CRC VirtualMachineInstance is not running';
    if (!vmi) return this.invalidate(objects, draft, Reason.VMIUnavailable, notRunning);
    await objects.verify(VIRTUAL_MACHINE_INSTANCES, vmi);
    const uid = vmi.metadata?.uid;
    if ((vmi.status as { phase?: string } | undefined)?.phase !== 'Running')
      return this.invalidate(objects, draft, Reason.VMIUnavailable, notRunning, uid);
    if (!recorded)
      return this.invalidate(
        objects,
        draft,
        Reason.VMIIdentityUnknown,
        'CRC VirtualMachineInstance identity was not recorded; rerunning post-boot setup',
        uid,
      );
    if (recorded !== uid)
      return this.invalidate(
        objects,
        draft,
        Reason.VMIReplaced,
        'CRC VirtualMachineInstance was replaced; rerunning post-boot setup',
        uid,
      );
    return undefined;
  }

  /**
   * The guest still answers the operator's own credentials, and the published kubeconfig still
   * holds them: rewritten when someone changed it; when it is gone, published again once a valid
   * handoff shows that the agent is done with this VMI.
   */
  private async healthCheck(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    hostname: string,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const instance = objects.instance;
    const secretName = kubeconfigSecretName(instance.metadata!.name!);
    const published = objects.cached<Secret>(SECRETS, secretName);
    if (published && !controlledBy(published, instance))
      throw new InstanceFailure(
        Reason.APIEndpointConflict,
        `kubeconfig Secret ${objects.namespace}/${secretName} is not owned by ClusterInstance ${instance.metadata!.name}`,
      );
    const access = await crcGuestAccess(objects, hostname, new Date(this.manager.clock.now()));
    if ('unavailable' in access)
      return this.apiUnavailable(draft, Reason.KubeconfigUnavailable, access.unavailable);
    let ocpVersion = instance.status?.ocpVersion ?? '';
    if (!published) {
      const vmiUid = instance.status!.crc!.vmiUID!;
      const handoff = await this.handoff(objects, vmiUid);
      if (!handoff)
        return this.apiUnavailable(
          draft,
          Reason.KubeconfigUnavailable,
          'published CRC kubeconfig is missing',
        );
      const rejected = handoffRejection(objects, vmiUid, handoff.kubeconfig, access);
      if (rejected) return this.apiUnavailable(draft, Reason.KubeconfigRejected, rejected);
      ocpVersion = handoff.ocpVersion;
    }
    try {
      await this.probe(access);
    } catch (error) {
      return this.apiUnavailable(
        draft,
        Reason.GuestAPIUnavailable,
        `guest API readiness check failed: ${(error as Error).message}`,
      );
    }
    await this.markReady(objects, draft, { access, ocpVersion, hostname }, context);
    return { requeueAfterMs: READY_RECHECK_MS };
  }

  /** "API unavailable" (spec §2.3.3): back to Provisioning, keeping the handoff and the Job. */
  private async apiUnavailable(
    draft: InstanceStatusDraft,
    reason: string,
    message: string,
  ): Promise<ReconcileResult> {
    draft.status.kubeconfigSecretRef = {};
    draft.condition({ type: 'GuestAPIReachable', status: 'False', reason, message });
    await writeInstanceStatus(this.manager, draft.waiting(reason, message));
    return { requeueAfterMs: RECHECK_MS };
  }

  /**
   * Invalidate readiness (spec §2.3.3): the old VMI's agent Job and the published kubeconfig go,
   * then the new VMI is recorded and the agent runs again for it. Waits on deletion events.
   */
  async invalidate(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    reason: string,
    message: string,
    newVmiUid?: string,
  ): Promise<ReconcileResult> {
    const instance = objects.instance;
    const recorded = instance.status?.crc?.vmiUID;
    if (
      recorded &&
      (await objects.remove(JOBS, agentJobName(instance.metadata!.name!, recorded), {
        propagationPolicy: 'Foreground',
      }))
    )
      return {};
    if (await objects.remove(SECRETS, kubeconfigSecretName(instance.metadata!.name!))) return {};
    draft.status.crc = {
      ...draft.status.crc,
      vmName: crcVmName(instance),
      dataVolumeName: crcDiskName(instance),
      ...(newVmiUid ? { vmiUID: newVmiUid } : {}),
    };
    draft.status.kubeconfigSecretRef = {};
    draft.removeCondition('CRCAgent');
    await writeInstanceStatus(this.manager, draft.waiting(reason, message));
    if (draft.instance.status?.phase === 'Ready')
      void this.manager.events.record(instance, 'Warning', reason, message);
    return {};
  }

  /** The handoff of this VMI, verified to be the instance's (spec §2.3.2 "handoff lookup"). */
  async handoff(objects: CrcObjects, vmiUid: string): Promise<Handoff | undefined> {
    const secret = objects.cached<Secret>(
      SECRETS,
      handoffSecretName(objects.instance.metadata!.name!, vmiUid),
    );
    const handoff = handoffFrom(secret, vmiUid);
    if (handoff) await objects.verify(SECRETS, secret!);
    return handoff;
  }
}
