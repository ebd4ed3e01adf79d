import {
  EVENTS,
  JOBS,
  LABEL_JOB_NAME,
  PODS,
  ROLE_BINDINGS,
  SERVICE_ACCOUNTS,
} from '../../../api/core-resources.js';
import type { ClusterInstance } from '../../../api/resources.js';
import { BUNDLES, SECRETS } from '../../../api/resources.js';
import { ApiError } from '../../../kube/api-error.js';
import {
  DATA_VOLUMES,
  VIRTUAL_MACHINE_INSTANCES,
  VIRTUAL_MACHINES,
} from '../../../api/platform-resources.js';
import type { Job, Pod, Secret } from '../../../kube/workloads.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { Manager, WatchSpec } from '../../../runtime/manager.js';
import type { GuestApiProbe } from '../guest-api-probe.js';
import { guestApiProbe } from '../guest-api-probe.js';
import type { PlatformObject } from '../hcp/hcp-builders.js';
import { conflictAs, OwnershipConflictError } from '../ownership-conflict.js';
import { resolvePullSecret } from '../pull-secret.js';
import {
  announce,
  InstanceFailure,
  InstanceStatusDraft,
  Reason,
  writeInstanceStatus,
} from '../instance-status.js';
import type { Topology } from '../topology.js';
import type { AgentCondition, CoreEvent } from './crc-agent-diagnostics.js';
import {
  agentPrerequisiteProblem,
  diagnoseAgent,
  HANDOFF_GRACE_MS,
  jobEnv,
} from './crc-agent-diagnostics.js';
import { ensureAgentRbac } from './crc-agent-rbac.js';
import { BootKeyError, ensureBootKey, readBundleSource } from './crc-boot-key.js';
import type { DiskSource, RbacObject, SshKeyRef } from './crc-builders.js';
import { buildAgentJob, buildDataVolume, buildVirtualMachine } from './crc-builders.js';
import { diskFailure } from './crc-disk-failure.js';
import { ensureCrcEndpoint } from './crc-endpoint.js';
import { buildIdentitySecret, validateIdentitySecret } from './crc-identity-secret.js';
import { crcGuestAccess, handoffRejection } from './crc-kubeconfig.js';
import { recordHostKey } from './crc-host-key.js';
import { ensureGuestNetworkPolicy } from './crc-network-policy.js';
import { ensureInstanceSshKey } from './crc-ssh-key.js';
import {
  agentAccountName,
  agentJobName,
  bootKeySecretName,
  crcBundleName,
  crcDiskName,
  crcVmName,
  handoffSecretName,
  identitySecretName,
} from './crc-naming.js';
import { CrcObjects } from './crc-objects.js';
import { controlledBy } from './crc-ownership.js';
import { crcTeardown } from './crc-teardown.js';
import type { Ready } from './crc-readiness.js';
import { CrcReadiness, RECHECK_MS } from './crc-readiness.js';
import { crcWatches } from './crc-watches.js';
import { AGENT_ENV } from '../../../../contracts/agent-job.js';

const BUNDLE_KEY_NAMES = ['id_ecdsa', 'ssh-privatekey', 'id_rsa'];

export interface CrcTopologyOptions {
  /** The guest API readiness check; by default a GET of /readyz through DNS. */
  probe?: GuestApiProbe;
}

/** Why the instance is not Ready yet; `agent` is the CRCAgent condition when the agent runs. */
interface Wait {
  reason: string;
  message: string;
  agent?: AgentCondition;
  requeueAfterMs?: number;
}

/** The draft was changed with something that must be durable before going on. */
const PERSIST = { persist: true } as const;
type Outcome = Wait | Ready | typeof PERSIST;

const waitFor = (reason: string, message: string, requeueAfterMs?: number): Wait => ({
  reason,
  message,
  requeueAfterMs,
});

/**
 * The crc topology (spec §2.3.2, §2.3.3, §2.3.7, §2.3.9–§2.3.11): one OpenShift Local VM per
 * instance on KubeVirt, booted from a CDI disk, finished by the crc-agent Job, and published
 * through a passthrough Route. Waits are for events on the objects involved; only the guest API
 * and the handoff's cache grace are looked at again after a while.
 */
export class CrcTopology implements Topology {
  readonly platformGate = { multiClusterEngine: false, wildcardRoutes: false, whenReady: true };
  private readonly probe: GuestApiProbe;
  private readonly readiness: CrcReadiness;

  constructor(
    private readonly manager: Manager,
    options: CrcTopologyOptions = {},
  ) {
    this.probe = options.probe ?? guestApiProbe();
    this.readiness = new CrcReadiness(manager, this.probe);
  }

  watches(): WatchSpec[] {
    return crcWatches(this.manager);
  }

  async reconcile(instance: ClusterInstance, context: ReconcileContext): Promise<ReconcileResult> {
    const objects = new CrcObjects(this.manager, instance);
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
    if (
      await conflictAs(Reason.ResourceOwnershipConflict, () => this.recordIdentity(objects, draft))
    ) {
      await writeInstanceStatus(this.manager, draft);
      return {};
    }
    if (instance.status?.phase === 'Ready') return this.readiness.pass(objects, draft, context);
    return this.provision(objects, draft, context);
  }

  async teardown(
    instance: ClusterInstance,
    context: ReconcileContext,
  ): Promise<'done' | 'pending' | 'recorded'> {
    const objects = new CrcObjects(this.manager, instance);
    const draft = new InstanceStatusDraft(instance, this.manager.clock.now());
    if (await this.recordIdentity(objects, draft, true)) {
      // The VMI's UID is durable before anything that proves its pods ours is deleted.
      await writeInstanceStatus(this.manager, draft.phase('Terminating'));
      return 'recorded';
    }
    const pending = await crcTeardown(this.manager, objects);
    if (!pending) context.logger.info('Deleted the CRC backing objects');
    return pending ? 'pending' : 'done';
  }

  /**
   * Record CRC identity (spec §2.3.6): the names, the VM's and DataVolume's UIDs, and the VMI's
   * UID while deleting, each verified to be the instance's. True when the draft changed.
   */
  private async recordIdentity(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    deleting = false,
  ): Promise<boolean> {
    const instance = objects.instance;
    const crc = { ...draft.status.crc };
    crc.vmName = crcVmName(instance);
    crc.dataVolumeName = crcDiskName(instance);
    const vm = await objects.live<PlatformObject>(VIRTUAL_MACHINES, crc.vmName);
    if (vm) {
      await objects.verify(VIRTUAL_MACHINES, vm);
      crc.vmUID = vm.metadata?.uid;
    }
    const disk = await objects.live<PlatformObject>(DATA_VOLUMES, crc.dataVolumeName);
    if (disk) {
      await objects.verify(DATA_VOLUMES, disk);
      crc.dataVolumeUID = disk.metadata?.uid;
    }
    if (deleting) {
      const vmi = await objects.live<PlatformObject>(VIRTUAL_MACHINE_INSTANCES, crc.vmName);
      if (vmi) {
        await objects.verify(VIRTUAL_MACHINE_INSTANCES, vmi);
        crc.vmiUID = vmi.metadata?.uid;
      }
    }
    draft.status.crc = crc;
    return draft.changed;
  }

  /** spec §2.3.2: provisioning, until the agent's handoff answers on the external endpoint. */
  private async provision(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const instance = objects.instance;
    const vmi = objects.cached<PlatformObject>(VIRTUAL_MACHINE_INSTANCES, crcVmName(instance));
    if (vmi) {
      await objects.verify(VIRTUAL_MACHINE_INSTANCES, vmi);
      const recorded = instance.status?.crc?.vmiUID;
      if (recorded && recorded !== vmi.metadata?.uid)
        return this.readiness.invalidate(
          objects,
          draft,
          Reason.VMIReplaced,
          'CRC VirtualMachineInstance was replaced; rerunning post-boot setup',
          vmi.metadata?.uid,
        );
    }
    const pullSecret = await this.pullSecret(objects);
    const manualKey = crcBundleName(instance) ? undefined : await this.bundleSshKey(objects);
    let outcome: Outcome;
    try {
      outcome = await conflictAs(Reason.APIEndpointConflict, () =>
        this.ensureBacking(objects, draft, { pullSecret, manualKey }, context),
      );
    } catch (error) {
      if (error instanceof BootKeyError) return this.bootKeyUnavailable(draft, error.message);
      // API errors are retried with backoff; anything else is a ReconcileError (spec §2.3.2 step 5).
      if (error instanceof InstanceFailure || error instanceof ApiError) throw error;
      throw new InstanceFailure(Reason.ReconcileError, (error as Error).message);
    }
    if ('persist' in outcome) {
      await writeInstanceStatus(this.manager, draft.phase('Provisioning'));
      return {};
    }
    if ('reason' in outcome) return this.waiting(draft, outcome);
    return this.readiness.markReady(objects, draft, outcome, context);
  }

  /** Phase Provisioning with why (spec §2.3.2 step 7). */
  private async waiting(draft: InstanceStatusDraft, wait: Wait): Promise<ReconcileResult> {
    if (wait.agent) {
      draft.condition({ type: 'CRCAgent', ...wait.agent });
      if (wait.agent.status === 'True') draft.waiting(wait.reason, wait.message);
      else draft.waiting(wait.agent.reason, wait.agent.message);
    } else {
      draft.removeCondition('CRCAgent');
      draft.waiting(wait.reason, wait.message);
    }
    draft.status.kubeconfigSecretRef = {};
    await writeInstanceStatus(this.manager, draft);
    return wait.requeueAfterMs ? { requeueAfterMs: wait.requeueAfterMs } : {};
  }

  private async bootKeyUnavailable(
    draft: InstanceStatusDraft,
    message: string,
  ): Promise<ReconcileResult> {
    draft.status.kubeconfigSecretRef = {};
    await writeInstanceStatus(this.manager, draft.waiting(Reason.BootKeyUnavailable, message));
    return { requeueAfterMs: RECHECK_MS };
  }

  /** spec §2.3.2 "Ensure CRC backing", in order; the first thing not there yet is the answer. */
  private async ensureBacking(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    inputs: { pullSecret: string; manualKey: string | undefined },
    context: ReconcileContext,
  ): Promise<Outcome> {
    const instance = objects.instance;
    const disk = await this.diskSource(objects, draft, inputs.manualKey);
    if (!('source' in disk)) return disk;
    const dataVolume = await objects.ensure(DATA_VOLUMES, buildDataVolume(instance, disk.source));
    if (dataVolume.created)
      announce(
        this.manager,
        instance,
        'DataVolumeCreated',
        `Created DataVolume ${objects.namespace}/${crcDiskName(instance)}`,
        context,
      );
    const vm = await objects.ensure(VIRTUAL_MACHINES, buildVirtualMachine(instance));
    if (vm.created)
      announce(
        this.manager,
        instance,
        'VirtualMachineCreated',
        `Created VirtualMachine ${objects.namespace}/${crcVmName(instance)}`,
        context,
      );
    const pending = (message: string): Wait => waitFor(Reason.CRCBackingPending, message);
    // A disk CDI cannot fill fails the instance (a pool replaces it; a retry sees a recovery).
    const failure = diskFailure(dataVolume.object);
    if (failure) throw new InstanceFailure(Reason.DataVolumeFailed, failure);
    if (!(vm.object.status as { ready?: boolean } | undefined)?.ready)
      return pending(
        `waiting for VirtualMachine ${objects.namespace}/${crcVmName(instance)} to be ready`,
      );
    const vmi = objects.cached<PlatformObject>(VIRTUAL_MACHINE_INSTANCES, crcVmName(instance));
    const vmiStatus = vmi?.status as
      { phase?: string; interfaces?: { ipAddress?: string }[] } | undefined;
    if (!vmi || vmiStatus?.phase !== 'Running')
      return pending(
        `waiting for VirtualMachineInstance ${objects.namespace}/${crcVmName(instance)} to run`,
      );
    await objects.verify(VIRTUAL_MACHINE_INSTANCES, vmi);
    const vmiUid = vmi.metadata!.uid!;
    const address = vmiStatus.interfaces?.find((i) => i.ipAddress)?.ipAddress;
    draft.status.crc = {
      ...draft.status.crc,
      vmiUID: vmiUid,
      ...(address ? { sshEndpoint: address } : {}),
    };
    if (!address)
      return pending(
        `waiting for VirtualMachineInstance ${objects.namespace}/${crcVmName(instance)} to get an IP address`,
      );
    return this.agentStage(
      objects,
      draft,
      { ...inputs, sshKey: disk.sshKey, vmiUid, address },
      context,
    );
  }

  /** Where the disk comes from and which key opens it (spec §2.3.2 step 3, §2.3.9). */
  private async diskSource(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    manualKey: string | undefined,
  ): Promise<{ source: DiskSource; sshKey: SshKeyRef } | Wait | typeof PERSIST> {
    const instance = objects.instance;
    const template = instance.spec.template;
    const bundleName = crcBundleName(instance);
    if (!bundleName)
      return {
        source: { http: template.releaseImage ?? '' },
        sshKey: { secretName: template.bundleSSHKeyRef!.name, dataKey: manualKey! },
      };
    const binding = instance.status?.crc?.bootKey;
    if (!binding) return this.bindBootKey(objects, draft, bundleName);
    const sizes = await ensureBootKey(objects, bundleName, binding, crcDiskName(instance));
    return {
      source: {
        pvc: { namespace: binding.pvcNamespace, name: binding.pvcName },
        storageClassName: binding.storageClassName,
        ...sizes,
      },
      sshKey: { secretName: bootKeySecretName(instance.metadata!.name!), dataKey: 'id_ecdsa' },
    };
  }

  /** No binding yet: wait for the bundle, then record which disk and key this instance gets. */
  private async bindBootKey(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    bundleName: string,
  ): Promise<Wait | typeof PERSIST> {
    const bundle = await objects.current<PlatformObject>(BUNDLES, bundleName);
    if (!bundle)
      return waitFor(Reason.CRCBackingPending, `CRCBundle ${bundleName} not found yet, waiting`);
    const phase = (bundle.status as { phase?: string } | undefined)?.phase;
    if (phase !== 'Ready')
      return waitFor(
        Reason.CRCBackingPending,
        `CRCBundle "${bundleName}" is not Ready yet (phase=${phase ?? ''})`,
      );
    if (await objects.current(DATA_VOLUMES, crcDiskName(objects.instance)))
      throw new BootKeyError(
        `CRC DataVolume ${objects.namespace}/${crcDiskName(objects.instance)} exists without a recorded disk/key binding; cannot verify its boot key`,
      );
    const { binding } = await readBundleSource(objects, bundleName);
    draft.status.crc = { ...draft.status.crc, bootKey: binding };
    return PERSIST;
  }

  /** spec §2.3.2 step 8: RBAC, endpoint, identity, the Job, and what came of it. */
  private async agentStage(
    objects: CrcObjects,
    draft: InstanceStatusDraft,
    inputs: { pullSecret: string; sshKey: SshKeyRef; vmiUid: string; address: string },
    context: ReconcileContext,
  ): Promise<Outcome> {
    await ensureAgentRbac(this.manager, objects, inputs.vmiUid);
    const endpoint = await ensureCrcEndpoint(this.manager, objects);
    if (endpoint.record) {
      draft.status.apiEndpoint = `https://${endpoint.hostname}`;
      return PERSIST;
    }
    await this.ensureIdentity(objects, endpoint.hostname);
    await ensureInstanceSshKey(objects);
    await ensureGuestNetworkPolicy(this.manager, objects);
    const job = await this.ensureAgentJob(objects, inputs, endpoint.hostname, context);
    recordHostKey(objects, draft, inputs.vmiUid);
    const handoff = await this.readiness.handoff(objects, inputs.vmiUid);
    const agent = await this.inspectAgent(objects, job, !!handoff);
    if (!handoff) {
      const graceLeft = agent.reason === 'HandoffPending' ? HANDOFF_GRACE_MS : undefined;
      return { reason: agent.reason, message: agent.message, agent, requeueAfterMs: graceLeft };
    }
    const access = await crcGuestAccess(objects, endpoint.hostname, this.now());
    if ('unavailable' in access) throw new Error(access.unavailable);
    const rejected = handoffRejection(objects, inputs.vmiUid, handoff.kubeconfig, access);
    if (rejected) return { reason: Reason.KubeconfigRejected, message: rejected, agent };
    try {
      await this.probe(access);
    } catch (error) {
      context.logger.info(
        { err: (error as Error).message },
        'CRC guest API is not externally ready yet',
      );
      return {
        reason: Reason.GuestAPIUnavailable,
        message:
          'CRC agent handoff received; guest API is not externally ready yet (see manager logs)',
        agent,
        requeueAfterMs: RECHECK_MS,
      };
    }
    return { access, ocpVersion: handoff.ocpVersion, hostname: endpoint.hostname };
  }

  private now(): Date {
    return new Date(this.manager.clock.now());
  }

  /** The identity Secret for the host: made once, then only checked (spec §3.12). */
  private async ensureIdentity(objects: CrcObjects, hostname: string): Promise<void> {
    const name = identitySecretName(objects.instance.metadata!.name!);
    const now = new Date(this.manager.clock.now());
    const existing = await objects.current<Secret>(SECRETS, name);
    if (!existing) {
      await objects.ensure(SECRETS, buildIdentitySecret(objects.instance, hostname, now));
      return;
    }
    if (!controlledBy(existing, objects.instance))
      throw new OwnershipConflictError(
        `CRC identity Secret ${objects.namespace}/${name} is not controlled by this ClusterInstance`,
      );
    try {
      validateIdentitySecret(existing, hostname, now);
    } catch (error) {
      throw new Error(
        `CRC identity Secret ${objects.namespace}/${name} is not usable: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private async ensureAgentJob(
    objects: CrcObjects,
    inputs: { pullSecret: string; sshKey: SshKeyRef; vmiUid: string; address: string },
    hostname: string,
    context: ReconcileContext,
  ): Promise<Job> {
    const instance = objects.instance;
    const name = agentJobName(instance.metadata!.name!, inputs.vmiUid);
    const existing = await objects.current<Job>(JOBS, name);
    if (existing) {
      if (!controlledBy(existing, instance))
        throw new OwnershipConflictError(
          `crc-agent Job ${objects.namespace}/${name} is not controlled by this ClusterInstance`,
        );
      return existing;
    }
    const desired = buildAgentJob(instance, {
      image: this.manager.config.crcAgentImage,
      vmiUid: inputs.vmiUid,
      vmiAddress: inputs.address,
      hostname,
      pullSecretName: inputs.pullSecret,
      sshKey: inputs.sshKey,
    });
    const { object } = await objects.ensure(JOBS, desired);
    announce(
      this.manager,
      instance,
      'AgentJobStarted',
      `Started crc-agent Job ${objects.namespace}/${name} for VMI ${inputs.vmiUid}`,
      context,
    );
    return object;
  }

  /** The CRCAgent condition (spec §2.3.11); a failed Job fails the instance. */
  private async inspectAgent(
    objects: CrcObjects,
    job: Job,
    handoffReceived: boolean,
  ): Promise<AgentCondition> {
    const instance = objects.instance;
    const ns = objects.namespace;
    const jobName = job.metadata!.name!;
    const pods = this.manager
      .informer<Pod>(PODS)
      .list((p) => p.metadata?.namespace === ns && p.metadata.labels?.[LABEL_JOB_NAME] === jobName);
    const jobVmi = jobEnv(job, AGENT_ENV.vmiUid) ?? '';
    const needsEvents = !handoffReceived && pods.every((p) => p.status?.phase !== 'Running');
    const events = needsEvents
      ? (await this.manager.client.list<CoreEvent>(EVENTS, { namespace: ns })).items
      : [];
    const verdict = diagnoseAgent({
      job,
      pods,
      events,
      handoffReceived,
      jobHandoff: objects.cached<Secret>(
        SECRETS,
        handoffSecretName(instance.metadata!.name!, jobVmi),
      ),
      prerequisiteProblem: handoffReceived ? undefined : await this.prerequisites(objects, job),
      now: this.manager.clock.now(),
    });
    if ('failed' in verdict)
      throw new InstanceFailure(Reason.AgentJobFailed, verdict.message, [
        {
          type: 'CRCAgent',
          status: 'False',
          reason: Reason.AgentJobFailed,
          message: verdict.message,
        },
      ]);
    return verdict;
  }

  private async prerequisites(objects: CrcObjects, job: Job): Promise<string | undefined> {
    const bindings = await this.manager.client.list<RbacObject>(ROLE_BINDINGS, {
      namespace: objects.namespace,
    });
    const secrets = new Map<string, Secret | undefined>();
    for (const volume of job.spec.template.spec.volumes ?? [])
      if (volume.secret)
        secrets.set(
          volume.secret.secretName,
          await objects.current<Secret>(SECRETS, volume.secret.secretName),
        );
    return agentPrerequisiteProblem(job, objects.instance, {
      serviceAccount: await objects.live(
        SERVICE_ACCOUNTS,
        agentAccountName(objects.instance.metadata!.name!),
      ),
      bindings: bindings.items,
      secrets: (name) => secrets.get(name),
    });
  }

  /** The pull secret in the instance namespace (spec §2.3.1); crc uses it in place. */
  private pullSecret(objects: CrcObjects): Promise<string> {
    return resolvePullSecret(objects.instance, (name) => objects.current<Secret>(SECRETS, name));
  }

  /** The manual path's bundle key (spec §2.3.1): the first non-empty of the known data keys. */
  private async bundleSshKey(objects: CrcObjects): Promise<string> {
    const name = objects.instance.spec.template.bundleSSHKeyRef?.name;
    if (!name)
      throw new InstanceFailure(
        Reason.MissingBundleSSHKey,
        'template.bundleSSHKeyRef is required for topology=crc but not set',
      );
    const secret = await objects.current<Secret>(SECRETS, name);
    if (!secret)
      throw new InstanceFailure(
        Reason.MissingBundleSSHKey,
        `bundle SSH key Secret ${objects.namespace}/${name} not found`,
      );
    const key = BUNDLE_KEY_NAMES.find((k) => secret.data?.[k]);
    if (!key)
      throw new InstanceFailure(
        Reason.MissingBundleSSHKey,
        `bundle SSH key Secret ${objects.namespace}/${name} has none of the data keys ${BUNDLE_KEY_NAMES.join(', ')}`,
      );
    return key;
  }
}
