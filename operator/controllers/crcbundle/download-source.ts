import type { ConditionUpdate } from '../../api/conditions.js';
import type { BundleStatus } from '../bundles/bundle-status.js';
import { findCondition } from '../../api/conditions.js';
import { CONFIG_MAPS, JOBS, PODS, PVCS } from '../../../client/api/core-resources.js';
import type { CRCBundle } from '../../../client/api/resources.js';
import { SECRETS } from '../../../client/api/resources.js';
import { isNotFound } from '../../../client/kube/api-error.js';
import type { KubeObject, Stored, StoredCluster } from '../../kube/objects.js';
import type { NamespacedType } from '../../../client/kube/resource-type.js';
import type { ConfigMap, Job, Pod, Secret } from '../../kube/workloads.js';
import { current, portsSource } from '../../reconcile/object-source.js';
import { runSteps, steps } from '../../reconcile/step-list.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { holds } from '../../reconcile/verdict.js';
import type { BackoffPolicy } from '../../runtime/backoff.js';
import { backoffDelay } from '../../runtime/backoff.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { PHASE, preparedCondition, READY_REASON } from '../bundles/bundle-conditions.js';
import type { BundleFailures } from '../bundles/bundle-metrics.js';
import type { BundleNames } from '../bundles/bundle-names.js';
import { bundleNames } from '../bundles/bundle-names.js';
import { buildGoldenPvc, buildScratchPvc } from './bundle-pvcs.js';
import { readPrepFailure } from './prep-failure.js';
import { ensurePrepAccess } from './prep-access.js';
import { buildPrepJob } from './prep-job.js';
import type { PreparationSlots } from '../bundles/preparation-slots.js';
import type { BundleControllerOptions, BundleSettings } from '../bundles/bundle-settings.js';
import { writeBundleStatus } from '../bundles/bundle-status.js';
import { METADATA_KEYS, SSH_KEY_DATA_KEY } from '../../../contracts/bundle-prep.js';
import { isControlledBy } from '../../kube/ownership.js';

type Bundle = StoredCluster<CRCBundle>;

/** A failed prep is retried on its own: 30 s, 1 min, 2 min … up to 30 min between attempts. */
export const PREP_RETRY_BACKOFF: BackoffPolicy = { baseMs: 30_000, maxMs: 30 * 60_000 };

/** Per bundle: failed preps in a row, the Job that failed last, and when the next try may start. */
interface RetryState {
  attempts: number;
  jobUid: string;
  nextAt: number;
}

/**
 * The download source of the CRCBundle controller (docs/reference/kinds.md#bundle-reconcile): golden and
 * scratch PVCs, the bundle-prep Job, and from its outputs (the SSH key Secret and the metadata
 * ConfigMap) a Ready bundle that instances clone. Event-driven: every object it waits for is owned
 * by the bundle and watched. A failed prep is retried with per-bundle backoff, and its condition
 * names the failed step.
 */
export class DownloadSource {
  private readonly retries = new Map<string, RetryState>();
  private readonly retryBackoff: BackoffPolicy;
  private readonly slots: PreparationSlots;
  private readonly failures: BundleFailures | undefined;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: BundleSettings,
    slots: PreparationSlots,
    options: BundleControllerOptions = {},
  ) {
    this.retryBackoff = options.retryBackoff ?? PREP_RETRY_BACKOFF;
    this.failures = options.failures;
    this.slots = slots;
  }

  private get namespace(): string {
    return this.settings.operatorNamespace;
  }

  /** Forgets the retry state of a bundle that is gone. */
  forget(key: string): void {
    this.retries.delete(key);
  }

  /** One pass for a download bundle, by its phase. */
  async reconcile(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    const names = bundleNames(bundle.metadata.name);
    switch (bundle.status?.phase) {
      case PHASE.preparing:
        return this.preparing(bundle, names, context);
      case PHASE.failed:
        return this.failed(bundle, names, context);
      case PHASE.ready:
        return this.ready(bundle, names, context);
      default:
        return this.pending(bundle, names, context);
    }
  }

  /** Pending: waits for a preparation slot (the admin's cap), then starts preparing. */
  private async pending(
    bundle: Bundle,
    names: BundleNames,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    // A PVC on its way out (reprovisioning after it was deleted) is waited for, not reused.
    const pvcs = await this.ports.cache.read(PVCS);
    for (const name of [names.golden, names.scratch])
      if (pvcs.get(name, this.namespace)?.metadata.deletionTimestamp) return {};
    const slot = await this.slots.take(bundle);
    if ('waiting' in slot) {
      await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.pending }, [
        ready('False', READY_REASON.waitingForPreparation, slot.waiting),
      ]);
      return {};
    }
    try {
      return await this.start(bundle, names, context);
    } finally {
      slot.release();
    }
  }

  /**
   * PVCs, the Job's outputs and its account exist, then the prep Job (created when missing,
   * never updated), then Preparing.
   */
  private async start(
    bundle: Bundle,
    names: BundleNames,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    // These steps hold or throw (an API error is retried with backoff).
    if (!('holds' in (await runSteps(this.prepSteps(bundle, context), {})))) return {};
    const retry =
      findCondition(bundle.status?.conditions, 'Ready')?.reason === READY_REASON.prepJobFailed;
    await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.preparing }, [
      ready('False', READY_REASON.preparing, 'downloading and extracting the CRC bundle'),
      preparedCondition('running', bundle.metadata?.generation),
    ]);
    void this.ports.events.record(
      bundle,
      'Normal',
      'Preparing',
      `Started bundle-prep Job ${this.namespace}/${names.prepJob}` + (retry ? ' (retry)' : ''),
    );
    return {};
  }

  /** What a preparation needs, in order, each created when missing and never updated. */
  private prepSteps(bundle: Bundle, context: ReconcileContext) {
    const { namespace, settings } = this;
    return steps()
      .then({
        name: 'golden PVC',
        run: () => this.ensure(PVCS, buildGoldenPvc(bundle, namespace), context),
      })
      .then({
        name: 'scratch PVC',
        run: () => this.ensure(PVCS, buildScratchPvc(bundle, namespace), context),
      })
      .then({
        name: 'prep access',
        run: async () => {
          await ensurePrepAccess(this.ports, bundle, namespace);
          return holds();
        },
      })
      .then({
        name: 'prep Job',
        run: () =>
          this.ensure(
            JOBS,
            buildPrepJob(bundle, {
              namespace,
              image: settings.crcAgentImage,
              mirrorUrl: settings.crcBundleMirrorUrl,
            }),
            context,
          ),
      });
  }

  private async preparing(
    bundle: Bundle,
    names: BundleNames,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const job = await this.current<Job>(JOBS, names.prepJob);
    if (!job) {
      await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.pending }, []);
      return {};
    }
    // A Job of a deleted bundle of the same name: wait for the garbage collector to remove it.
    if (!isControlledBy(job, bundle)) return {};
    if (jobFailed(job)) return this.prepFailed(bundle, job, context);
    if (!((job.status?.succeeded ?? 0) > 0)) return {};
    const data = await this.published(bundle, names);
    if (!data) return {};
    const virtualSize = Number(data[METADATA_KEYS.diskVirtualSizeBytes]);
    await this.writeStatus(
      bundle,
      {
        ...bundle.status,
        phase: PHASE.ready,
        qcow2PVCRef: { name: names.golden },
        qcow2PVCNamespace: this.namespace,
        sshKeySecretRef: { name: names.sshKeySecret },
        ocpVersion: data[METADATA_KEYS.ocpVersion],
        sha256: data[METADATA_KEYS.sha256],
        diskSHA256: data[METADATA_KEYS.diskSha256],
        ...(Number.isSafeInteger(virtualSize) ? { diskVirtualSizeBytes: virtualSize } : {}),
      },
      [
        ready('True', READY_REASON.bundleReady, 'golden PVC and SSH key are ready to be cloned'),
        preparedCondition('done', bundle.metadata?.generation),
      ],
    );
    this.retries.delete(bundle.metadata.name);
    context.logger.info({ ocpVersion: data[METADATA_KEYS.ocpVersion] }, 'Prepared CRCBundle');
    void this.ports.events.record(
      bundle,
      'Normal',
      READY_REASON.bundleReady,
      `Golden disk ready in ${this.namespace}/${names.golden}: OpenShift ${data[METADATA_KEYS.ocpVersion]}, disk sha256 ${data[METADATA_KEYS.diskSha256]}`,
    );
    await this.cleanUp(names, context);
    return {};
  }

  /**
   * The metadata the Job published, once both outputs are filled in and the bundle's (the
   * operator made them empty; their events bring us back if the cache lags).
   */
  private async published(
    bundle: Bundle,
    names: BundleNames,
  ): Promise<Record<string, string> | undefined> {
    const { cache } = this.ports;
    const metadata = (await cache.read<ConfigMap>(CONFIG_MAPS)).get(
      names.metadataConfigMap,
      this.namespace,
    );
    const secret = (await cache.read<Secret>(SECRETS)).get(names.sshKeySecret, this.namespace);
    const data = metadata?.data ?? {};
    const filled = !!data[METADATA_KEYS.diskSha256] && !!secret?.data?.[SSH_KEY_DATA_KEY];
    return filled && isControlledBy(metadata, bundle) && isControlledBy(secret, bundle)
      ? data
      : undefined;
  }

  /**
   * The Job gave up: Failed, with the step and message from its last pod, and a retry scheduled.
   */
  private async prepFailed(
    bundle: Bundle,
    job: Stored<Job>,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const key = bundle.metadata.name;
    const now = this.ports.clock.now();
    // Counted once per failed Job, however often this pass runs for it.
    const state = this.retryState(key, job, (previous) => {
      const attempts = (previous?.attempts ?? 0) + 1;
      return { attempts, nextAt: now + backoffDelay(this.retryBackoff, attempts) };
    });
    const pods = await this.ports.client.list<Pod>(PODS, {
      namespace: this.namespace,
      labelSelector: `batch.kubernetes.io/job-name=${job.metadata.name}`,
    });
    const failure = readPrepFailure(pods.filter((pod) => isControlledBy(pod, job)));
    const wait = Math.max(0, state.nextAt - now);
    const step = failure.step ? ` in step ${failure.step}` : '';
    const message =
      `bundle-prep Job ${job.metadata.name} failed${step} (backoffLimit exhausted): ${failure.message}. ` +
      `Retrying in ${formatDuration(wait)} (attempt ${state.attempts + 1})`;
    const prepared = preparedCondition(
      { step: failure.step, message: failure.message },
      bundle.metadata?.generation,
    );
    const newlyFailed = bundle.status?.phase !== PHASE.failed;
    await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.failed }, [
      ready('False', READY_REASON.prepJobFailed, message),
      prepared,
    ]);
    // Counted when the bundle becomes Failed, not on every pass that sees it failed.
    if (newlyFailed) this.failures?.inc({ bundle: key, reason: prepared.reason });
    context.logger.warn({ step: failure.step, attempts: state.attempts }, 'bundle-prep failed');
    void this.ports.events.record(bundle, 'Warning', READY_REASON.prepJobFailed, message);
    return { requeueAfterMs: wait };
  }

  /** Failed: once the backoff has passed, the failed Job is deleted; its absence means Pending. */
  private async failed(
    bundle: Bundle,
    names: BundleNames,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const job = await this.current<Job>(JOBS, names.prepJob);
    if (!job) {
      await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.pending }, []);
      return {};
    }
    const key = bundle.metadata.name;
    const now = this.ports.clock.now();
    // Failed before this process started: count from when the bundle failed.
    const state = this.retryState(key, job, () => {
      const ready = findCondition(bundle.status?.conditions, 'Ready');
      const since = Date.parse(ready?.lastTransitionTime ?? '') || now;
      return { attempts: 1, nextAt: since + backoffDelay(this.retryBackoff, 1) };
    });
    if (now < state.nextAt) return { requeueAfterMs: state.nextAt - now };
    await this.deleteQuietly(JOBS, job, context);
    context.logger.info({ attempt: state.attempts + 1 }, 'Deleted failed bundle-prep Job to retry');
    void this.ports.events.record(
      bundle,
      'Normal',
      'RetryingPrep',
      `Deleted failed bundle-prep Job ${this.namespace}/${names.prepJob} to retry (attempt ${state.attempts + 1})`,
    );
    return {};
  }

  /** Ready: a lost golden PVC or SSH key Secret means preparing again. */
  private async ready(
    bundle: Bundle,
    names: BundleNames,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const found = await this.current(PVCS, names.golden);
    const golden = found?.metadata.deletionTimestamp ? undefined : found;
    const secret = golden ? await this.current(SECRETS, names.sshKeySecret) : undefined;
    const cause = !golden ? 'golden PVC is missing' : !secret ? 'SSH key secret is missing' : '';
    if (cause) {
      await this.writeStatus(bundle, { ...bundle.status, phase: PHASE.pending }, [
        ready('False', READY_REASON.reprovisioning, cause),
      ]);
      context.logger.warn({ cause }, 'Preparing CRCBundle again');
      void this.ports.events.record(
        bundle,
        'Warning',
        READY_REASON.reprovisioning,
        `Preparing the bundle again: ${cause}`,
      );
      return {};
    }
    await this.cleanUp(names, context);
    return {};
  }

  /**
   * The retry record of a bundle for this failed Job, made by `start` when the Job is new to it.
   */
  private retryState(
    key: string,
    job: Stored<Job>,
    start: (previous: RetryState | undefined) => Omit<RetryState, 'jobUid'>,
  ): RetryState {
    const previous = this.retries.get(key);
    if (previous && previous.jobUid === job.metadata.uid) return previous;
    const state = { ...start(previous), jobUid: job.metadata.uid };
    this.retries.set(key, state);
    return state;
  }

  /**
   * Best effort, also on later passes: the finished Job goes (its pod would hold the scratch PVC)
   * and so does the scratch PVC. Failures are only logged.
   */
  private async cleanUp(names: BundleNames, context: ReconcileContext): Promise<void> {
    const { cache } = this.ports;
    const job = (await cache.read<Job>(JOBS)).get(names.prepJob, this.namespace);
    if (job) await this.deleteQuietly(JOBS, job, context);
    const scratch = (await cache.read(PVCS)).get(names.scratch, this.namespace);
    if (scratch) await this.deleteQuietly(PVCS, scratch, context);
  }

  private async deleteQuietly(
    type: NamespacedType,
    object: Stored<KubeObject>,
    context: ReconcileContext,
  ): Promise<void> {
    const { name } = object.metadata;
    try {
      await this.ports.client.delete(type, object, { propagationPolicy: 'Background' });
      context.logger.info({ name }, `Deleted ${type.kind}`);
    } catch (error) {
      if (!isNotFound(error))
        context.logger.warn({ err: error, name }, `Failed to delete ${type.kind}`);
    }
  }

  /**
   * Creates an object that the cache does not have; AlreadyExists is fine, existing ones are never
   * updated.
   */
  private async ensure(
    type: NamespacedType,
    object: KubeObject,
    context: ReconcileContext,
  ): Promise<Verdict<Nothing>> {
    const name = object.metadata?.name ?? '';
    if ((await this.ports.cache.read(type)).get(name, this.namespace)) return holds();
    if (await this.ports.client.createIfAbsent(type, object))
      context.logger.info({ name }, `Created ${type.kind}`);
    return holds();
  }

  /** From the cache, else a live read (the cache may not have seen a create yet). */
  private current<T extends KubeObject>(
    type: NamespacedType,
    name: string,
  ): Promise<Stored<T> | undefined> {
    return current<T>(portsSource(this.ports), type, name, this.namespace);
  }

  private async writeStatus(
    bundle: Bundle,
    status: BundleStatus,
    conditions: ConditionUpdate[],
  ): Promise<void> {
    await writeBundleStatus(this.ports, bundle, status, conditions);
  }
}

function ready(status: 'True' | 'False', reason: string, message: string): ConditionUpdate {
  return { type: 'Ready', status, reason, message };
}

/**
 * Failed for good: the Job's Failed condition, or more failed pods than its backoffLimit allows.
 */
function jobFailed(job: Job): boolean {
  const failedCondition = job.status?.conditions?.some(
    (c) => c.type === 'Failed' && c.status === 'True',
  );
  const limit = job.spec.backoffLimit;
  return failedCondition === true || (job.status?.failed ?? 0) > (limit ?? 6);
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)}m`;
}
