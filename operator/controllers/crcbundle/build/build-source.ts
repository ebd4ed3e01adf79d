import { randomBytes } from 'node:crypto';
import type { ConditionUpdate } from '../../../api/conditions.js';
import { findCondition } from '../../../api/conditions.js';
import { BUNDLES } from '../../../api/resources.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { ControllerPorts } from '../../../runtime/ports.js';
import type { BuildStage } from '../../../../contracts/bundle-build.js';
import { BUILD_STAGES } from '../../../../contracts/bundle-build.js';
import { PHASE, READY_REASON } from '../bundle-conditions.js';
import { bundleNames } from '../bundle-names.js';
import type { BundleControllerOptions, BundleSettings } from '../bundle-settings.js';
import type { BundleStatus } from '../bundle-status.js';
import { writeBundleStatus } from '../bundle-status.js';
import { profileOf } from '../../../api/vm-profile.js';
import { MissingInput, readBuildInputs } from './build-inputs.js';
import type { Bundle } from './build-meta.js';
import { buildNames } from './build-names.js';
import type { StageResult } from './build-pass.js';
import { BuildFailure, BuildPass, CreateRefused } from './build-pass.js';
import { ensureGuestPolicy } from './build-network-policy.js';
import { publishedStatus } from './build-publish.js';
import { checkRecorded } from './build-recorded.js';
import type { BuildRecord } from './build-record.js';
import { STAGE_WORK } from './build-stages.js';
import { tearDownAttempt } from './build-teardown.js';
import type { PreparationSlots } from '../preparation-slots.js';

/** On a build bundle: its Jobs and VMs stop before its storage goes (the garbage collector would not wait). */
export const FINALIZER_BUILD_CLEANUP = 'guestcluster.opdev.io/bundle-build-cleanup';
/** True once a finished build's work objects are gone. */
export const CLEANED_UP = 'BuildCleanedUp';
export const BUILD_REASON = {
  building: 'Building',
  waitingForInputs: 'WaitingForInputs',
  timedOut: 'BuildTimedOut',
  stageCompleted: 'StageCompleted',
  inProgress: 'InProgress',
  createRefused: 'CreateRefused',
} as const;

const DEFAULT_DEADLINE_SECONDS = 14_400;
const now = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const attemptId = (): string =>
  Array.from(randomBytes(6), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
const label = (stage: BuildStage): string => `${stage.phase} ${stage.name}`;

/**
 * The build source of the CRCBundle controller (spec.build; ADR 0031): one attempt per bundle,
 * recorded in status before anything is made for it, run stage by stage (P0–P13, then the
 * validation instance), one stage per pass. Every object is recorded with its UID before it is
 * used, so a restarted operator goes on with the same attempt and its objects. A failed build
 * stays Failed (a new recipe or a retry is a new CRCBundle) and leaves nothing behind.
 */
export class BuildSource {
  constructor(
    private readonly ports: ControllerPorts,
    private readonly settings: BundleSettings,
    /** The admin's cap on builds at once (--max-building-bundles). */
    private readonly slots: PreparationSlots,
    private readonly options: Pick<BundleControllerOptions, 'failures'> = {},
  ) {}

  async reconcile(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    if (bundle.metadata.deletionTimestamp) return this.deleting(bundle, context);
    const finalizers = bundle.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_BUILD_CLEANUP)) {
      await this.ports.client.update(BUNDLES, {
        ...bundle,
        metadata: { ...bundle.metadata, finalizers: [...finalizers, FINALIZER_BUILD_CLEANUP] },
      });
      return {};
    }
    const phase = bundle.status?.phase;
    if (phase === PHASE.ready || phase === PHASE.failed) return this.settled(bundle, context);
    if (!bundle.status?.build?.attempt) return this.start(bundle);
    return this.advance(bundle, bundle.status.build, context);
  }

  /**
   * Once its inputs exist and a build slot is free (--max-building-bundles), records the attempt,
   * the inputs' digests and the profile before anything is made.
   */
  private async start(bundle: Bundle): Promise<ReconcileResult> {
    let records;
    try {
      records = (await readBuildInputs(this.ports.client, bundle, this.namespace)).records;
    } catch (error) {
      if (!(error instanceof MissingInput)) throw error;
      await this.write(bundle, { ...bundle.status, phase: PHASE.pending }, [
        ready('False', BUILD_REASON.waitingForInputs, error.message),
      ]);
      return {};
    }
    const slot = await this.slots.take(bundle);
    if ('waiting' in slot) {
      await this.write(bundle, { ...bundle.status, phase: PHASE.pending }, [
        ready('False', READY_REASON.waitingForBuildSlot, slot.waiting),
      ]);
      return {};
    }
    try {
      await this.record(bundle, records);
    } finally {
      slot.release();
    }
    return {};
  }

  /** The attempt, written with phase Preparing: from now on it holds its build slot. */
  private async record(bundle: Bundle, records: BuildRecord['inputs']): Promise<void> {
    const spec = bundle.spec.build!;
    const profile = profileOf(bundle)!;
    const build: BuildRecord = {
      attempt: attemptId(),
      startedAt: now(this.ports.clock.now()),
      stage: BUILD_STAGES[0].name,
      releaseDigest: spec.releaseImage.slice(spec.releaseImage.indexOf('@') + 1),
      profile: profile.name,
      vmProfile: {
        cores: spec.vm?.cores ?? 6,
        memory: spec.vm?.memory ?? '14336Mi',
        diskSize: spec.vm?.diskSize ?? '35Gi',
        firmware: profile.firmware,
      },
      inputs: records,
    };
    const first = BUILD_STAGES[0];
    await this.write(bundle, { ...bundle.status, phase: PHASE.preparing, build }, [
      ready('False', BUILD_REASON.building, `building: ${label(first)}`),
    ]);
    void this.ports.events.record(
      bundle,
      'Normal',
      'BuildStarted',
      `Build attempt ${build.attempt} started from ${spec.releaseImage} with profile ${profile.name}; stage ${label(first)}`,
    );
  }

  /** One stage's work; the status says where it stands, and a finished stage moves on. */
  private async advance(
    bundle: Bundle,
    build: BuildRecord,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const index = Math.max(
      0,
      BUILD_STAGES.findIndex((s) => s.name === build.stage),
    );
    const stage = BUILD_STAGES[index]!;
    const deadline = Date.parse(build.startedAt ?? '') + 1000 * this.deadlineSeconds(bundle);
    const left = deadline - this.ports.clock.now();
    if (left <= 0) {
      const waited = findCondition(bundle.status?.conditions, stage.condition)?.message;
      return this.fail(
        bundle,
        build,
        stage,
        BUILD_REASON.timedOut,
        `the build did not finish within ${this.deadlineSeconds(bundle)}s (spec.build.deadlineSeconds); it was in stage ${label(stage)}${waited ? `: ${waited}` : ''}`,
      );
    }
    const names = buildNames(bundle.metadata.name, build.attempt!);
    const pass = new BuildPass(bundle, build, names, {
      ports: this.ports,
      settings: this.settings,
      context,
    });
    let result: StageResult;
    try {
      await checkRecorded(pass);
      result = (await ensureGuestPolicy(pass)) ?? (await STAGE_WORK[stage.name](pass));
    } catch (error) {
      if (error instanceof BuildFailure)
        return this.fail(bundle, pass.build, stage, error.reason, error.message);
      if (error instanceof CreateRefused) await this.refused(bundle, stage, error.message);
      throw error;
    }
    const status = { ...bundle.status, build: pass.build };
    if ('record' in result) {
      await this.write(bundle, status, []);
      return {};
    }
    if ('wait' in result) {
      await this.write(bundle, status, [
        {
          type: stage.condition,
          status: 'False',
          reason: BUILD_REASON.inProgress,
          message: result.wait,
        },
        ready('False', BUILD_REASON.building, `${label(stage)}: ${result.wait}`),
      ]);
      return { requeueAfterMs: Math.min(left, result.requeueAfterMs ?? left) };
    }
    if ('fail' in result) return this.fail(bundle, pass.build, stage, result.fail, result.message);
    return this.completed(bundle, status, stage, BUILD_STAGES[index + 1], context);
  }

  private async completed(
    bundle: Bundle,
    status: BundleStatus,
    stage: BuildStage,
    next: BuildStage | undefined,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const build = status.build!;
    const done: ConditionUpdate = {
      type: stage.condition,
      status: 'True',
      reason: BUILD_REASON.stageCompleted,
      message: `${label(stage)} completed`,
    };
    const published =
      stage.name === 'Publish' ? publishedStatus(build, this.namespace, bundle.metadata.name) : {};
    if (!next) {
      const at = now(this.ports.clock.now());
      const message = `golden disk ${this.namespace}/${bundleNames(bundle.metadata.name).golden} built and validated: OpenShift ${status.ocpVersion}, disk sha256 ${status.diskSHA256}`;
      await this.write(
        bundle,
        { ...status, phase: PHASE.ready, build: { ...build, completedAt: at } },
        [done, ready('True', READY_REASON.bundleReady, message)],
      );
      context.logger.info({ attempt: build.attempt }, 'Built CRCBundle');
      void this.ports.events.record(bundle, 'Normal', READY_REASON.bundleReady, message);
      return {};
    }
    await this.write(bundle, { ...status, ...published, build: { ...build, stage: next.name } }, [
      done,
      ready('False', BUILD_REASON.building, `building: ${label(next)}`),
    ]);
    void this.ports.events.record(
      bundle,
      'Normal',
      'BuildStageCompleted',
      `${label(stage)} completed; starting ${label(next)}`,
    );
    return {};
  }

  /**
   * A create the apiserver refused: the stage says so (and an Event), and the pass is retried with
   * backoff (the error goes on to the runtime) until the refusal is lifted.
   */
  private async refused(bundle: Bundle, stage: BuildStage, message: string): Promise<void> {
    await this.write(bundle, bundle.status ?? {}, [
      { type: stage.condition, status: 'False', reason: BUILD_REASON.createRefused, message },
      ready('False', BUILD_REASON.building, `${label(stage)}: ${message}`),
    ]);
    void this.ports.events.record(bundle, 'Warning', BUILD_REASON.createRefused, message);
  }

  private async fail(
    bundle: Bundle,
    build: BuildRecord,
    stage: BuildStage,
    reason: string,
    message: string,
  ): Promise<ReconcileResult> {
    const text = `${label(stage)} failed: ${message}`;
    await this.write(
      bundle,
      {
        ...bundle.status,
        phase: PHASE.failed,
        build: { ...build, completedAt: now(this.ports.clock.now()) },
      },
      [{ type: stage.condition, status: 'False', reason, message }, ready('False', reason, text)],
    );
    this.options.failures?.inc({ bundle: bundle.metadata.name, reason });
    void this.ports.events.record(bundle, 'Warning', reason, text);
    return {};
  }

  /** Ready or Failed: the attempt's work objects go (a Ready bundle keeps what it publishes). */
  private async settled(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    const attempt = bundle.status?.build?.attempt;
    if (!attempt || findCondition(bundle.status?.conditions, CLEANED_UP)?.status === 'True')
      return {};
    const names = bundleNames(bundle.metadata.name);
    const keep = new Set(
      bundle.status?.phase === PHASE.ready
        ? [names.golden, names.sshKeySecret, names.metadataConfigMap]
        : [],
    );
    const clean = await tearDownAttempt(
      this.ports,
      bundle,
      { namespace: this.namespace, attempt, keep },
      context,
    );
    if (!clean) return {};
    await this.write(bundle, bundle.status!, [
      {
        type: CLEANED_UP,
        status: 'True',
        reason: 'WorkObjectsDeleted',
        message: `the build's VMs, Jobs, work storage, credentials and validation instance are deleted${keep.size ? '; the golden disk, SSH key and metadata stay' : ''}`,
      },
    ]);
    void this.ports.events.record(
      bundle,
      'Normal',
      CLEANED_UP,
      `Build attempt ${attempt} cleaned up`,
    );
    return {};
  }

  /** Deleted: Jobs and VMs stop, then storage goes; then the finalizer lets the bundle go. */
  private async deleting(bundle: Bundle, context: ReconcileContext): Promise<ReconcileResult> {
    const finalizers = bundle.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_BUILD_CLEANUP)) return {};
    const attempt = bundle.status?.build?.attempt;
    if (attempt) {
      const scope = { namespace: this.namespace, attempt, keep: new Set<string>() };
      if (!(await tearDownAttempt(this.ports, bundle, scope, context))) return {};
    }
    await this.ports.client.update(BUNDLES, {
      ...bundle,
      metadata: {
        ...bundle.metadata,
        finalizers: finalizers.filter((f) => f !== FINALIZER_BUILD_CLEANUP),
      },
    });
    return {};
  }

  private deadlineSeconds(bundle: Bundle): number {
    return bundle.spec.build?.deadlineSeconds ?? DEFAULT_DEADLINE_SECONDS;
  }

  private get namespace(): string {
    return this.settings.operatorNamespace;
  }

  private async write(bundle: Bundle, status: BundleStatus, conditions: ConditionUpdate[]) {
    await writeBundleStatus(this.ports, bundle, status, conditions);
  }
}

function ready(status: 'True' | 'False', reason: string, message: string): ConditionUpdate {
  return { type: 'Ready', status, reason, message };
}
