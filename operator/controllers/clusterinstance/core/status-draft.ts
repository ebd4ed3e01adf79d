import { setCondition } from '../../../api/conditions.js';
import type { ClusterInstance } from '../../../../client/api/resources.js';
import { metaTime } from '../../../../client/kube/meta-time.js';
import { sameContent } from '../../../kube/objects.js';
import type { EventType } from '../../../runtime/event-recorder.js';
import type { Instance } from './instance-api.js';
import type { InstanceCondition } from './reasons.js';
import { Reason } from './reasons.js';

export type InstanceStatus = NonNullable<ClusterInstance['status']>;
type Phase = NonNullable<InstanceStatus['phase']>;

/** An Event about the pass's outcome, sent once the status that says it is written. */
export interface Announcement {
  type: EventType;
  reason: string;
  message: string;
}

/**
 * The status one instance pass builds up: the gates, the topology's records and its verdict,
 * written once at the end and only when it changed. It starts from the cached status, so the
 * lease controller's claim (status.leaseRef) is kept, and the write carries the resourceVersion
 * it was read with.
 */
export class InstanceStatusDraft {
  readonly status: InstanceStatus;
  readonly announcements: Announcement[] = [];

  constructor(
    readonly instance: Instance,
    private readonly now: number,
  ) {
    this.status = structuredClone(instance.status ?? {});
  }

  /** The instance was Ready when the pass read it: what fails now is a loss of readiness. */
  get wasReady(): boolean {
    return this.instance.status?.phase === 'Ready';
  }

  condition(update: InstanceCondition): this {
    this.status.conditions = setCondition(
      this.status.conditions,
      { ...update, observedGeneration: this.instance.metadata?.generation },
      this.now,
    );
    return this;
  }

  hasCondition(type: string): boolean {
    return !!this.status.conditions?.some((c) => c.type === type);
  }

  /** Drops a condition (CRCAgent once the instance is Ready or readiness is lost). */
  removeCondition(type: string): this {
    const kept = this.status.conditions?.filter((c) => c.type !== type);
    if (kept && kept.length !== this.status.conditions!.length) this.status.conditions = kept;
    return this;
  }

  phase(phase: Phase): this {
    this.status.phase = phase;
    this.status.observedGeneration = this.instance.metadata?.generation;
    return this;
  }

  /** Phase Provisioning, Ready=False with why. */
  waiting(reason: string, message: string): this {
    return this.phase('Provisioning').condition({
      type: 'Ready',
      status: 'False',
      reason,
      message,
    });
  }

  /** Phase Failed, Ready=False with why, and the other conditions that describe the failure. */
  failed(reason: string, message: string, conditions: readonly InstanceCondition[] = []): this {
    for (const condition of conditions) this.condition(condition);
    return this.phase('Failed').condition({ type: 'Ready', status: 'False', reason, message });
  }

  /**
   * Phase Ready with the endpoint, version and Secret the lease controller hands out
   * (docs/reference/instances.md#common-steps).
   */
  ready(details: {
    ocpVersion: string;
    apiEndpoint: string;
    kubeconfig: { secretName: string; sha256: string };
  }): this {
    const wanted = this.instance.spec.template.ocpVersion;
    const mismatch = !!wanted && !!details.ocpVersion && wanted !== details.ocpVersion;
    this.phase('Ready');
    this.status.firstReadyAt ??= metaTime(this.now);
    this.status.ocpVersion = details.ocpVersion;
    this.status.topology = this.instance.spec.type;
    this.status.apiEndpoint = details.apiEndpoint;
    this.status.kubeconfigSecretRef = { name: details.kubeconfig.secretName };
    this.status.kubeconfigSHA256 = details.kubeconfig.sha256;
    this.condition({
      type: 'VersionMismatch',
      status: mismatch ? 'True' : 'False',
      reason: mismatch ? Reason.OCPVersionMismatch : Reason.OCPVersionMatches,
      message: mismatch
        ? `requested OCPVersion "${wanted}" but observed "${details.ocpVersion}"`
        : 'observed OCPVersion matches template',
    });
    return this.condition({
      type: 'Ready',
      status: 'True',
      reason: Reason.BackingResourcesAvailable,
      message: 'Guest cluster is provisioned and kubeconfig is available',
    });
  }

  /** An Event to send once this status is written (a transition a person cares about). */
  announce(type: EventType, reason: string, message: string): this {
    this.announcements.push({ type, reason, message });
    return this;
  }

  /**
   * Whether the status differs in content. Key order does not count: the apiserver returns keys
   * sorted, and treats a write that changes nothing as a no-op that no watch event reports.
   */
  get changed(): boolean {
    return !sameContent(this.instance.status ?? {}, this.status);
  }
}
