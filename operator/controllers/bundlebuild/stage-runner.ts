import type { ConditionUpdate } from '../../api/conditions.js';
import { findCondition } from '../../api/conditions.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import { PHASE, READY_REASON } from '../bundles/bundle-conditions.js';
import { bundleNames } from '../bundles/bundle-names.js';
import type { BundleStatus } from '../bundles/bundle-status.js';
import { BUILD_REASON, ready } from './build-conditions.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import type { BuildEnv } from './build-env.js';
import { writeBuild } from './build-env.js';
import type { Bundle } from './build-meta.js';
import { buildNames } from './build-names.js';
import { ensureGuestPolicy } from './build-network-policy.js';
import { BuildPass } from './build-pass.js';
import type { BuildRecord } from './build-record.js';
import { checkRecorded } from './build-recorded.js';
import { stageNamed } from './build-stages.js';
import type { BuildStage } from './stage-row.js';
import { stageLabel } from './stage-row.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';
import { runSteps, steps } from '../../reconcile/step-list.js';
import { StepFailure, CreateRefused } from '../../reconcile/step-errors.js';

const DEFAULT_DEADLINE_SECONDS = 14_400;

/**
 * Runs a recorded attempt one stage per pass (docs/bundle-build.md#stage-map): every recorded
 * object checked, the guests' NetworkPolicy first, then the stage's work; its verdict becomes the
 * stage's condition and the bundle's Ready, a finished stage moves on, and the attempt's deadline
 * (spec.build.deadlineSeconds) fails the build. The status draft is written once per pass.
 */
export class StageRunner {
  constructor(private readonly env: BuildEnv) {}

  async advance(
    bundle: Bundle,
    build: BuildRecord,
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const { stage, next } = stageNamed(build.stage);
    const left = Date.parse(build.startedAt ?? '') + 1000 * deadline(bundle) - this.now();
    if (left <= 0) return this.timedOut(bundle, build, stage);
    const pass = new BuildPass(bundle, build, buildNames(bundle.metadata.name, build.attempt!), {
      ports: this.env.ports,
      settings: this.env.settings,
      context,
    });
    let verdict: Verdict<Nothing>;
    try {
      await checkRecorded(pass);
      const list = steps()
        .then({ name: 'guests NetworkPolicy', run: () => ensureGuestPolicy(pass) })
        .then({ name: stageLabel(stage), run: () => stage.work(pass, stage) });
      verdict = await runSteps(list, {});
    } catch (error) {
      if (error instanceof StepFailure) return this.fail(bundle, pass.build, stage, error);
      if (error instanceof CreateRefused) await this.refused(bundle, stage, error.message);
      throw error;
    }
    const status = { ...bundle.status, build: pass.build };
    if ('record' in verdict) {
      await writeBuild(this.env, bundle, status, []);
      return {};
    }
    if ('wait' in verdict) {
      const { reason, message, requeueAfterMs } = verdict.wait;
      await writeBuild(this.env, bundle, status, [
        { type: stage.condition, status: 'False', reason, message },
        ready('False', BUILD_REASON.building, `${stageLabel(stage)}: ${message}`),
      ]);
      return { requeueAfterMs: Math.min(left, requeueAfterMs ?? left) };
    }
    if ('fail' in verdict) return this.fail(bundle, pass.build, stage, verdict.fail);
    return this.completed(bundle, status, { stage, next }, context);
  }

  private async completed(
    bundle: Bundle,
    status: BundleStatus,
    { stage, next }: { stage: BuildStage; next?: BuildStage },
    context: ReconcileContext,
  ): Promise<ReconcileResult> {
    const build = status.build!;
    const name = bundle.metadata.name;
    const done: ConditionUpdate = {
      type: stage.condition,
      status: 'True',
      reason: BUILD_REASON.stageCompleted,
      message: `${stageLabel(stage)} completed`,
    };
    const published = stage.publishes?.(build, this.env.settings.operatorNamespace, name) ?? {};
    if (!next) {
      const golden = `${this.env.settings.operatorNamespace}/${bundleNames(name).golden}`;
      const message = `golden disk ${golden} built and validated: OpenShift ${status.ocpVersion}, disk sha256 ${status.diskSHA256}`;
      await writeBuild(
        this.env,
        bundle,
        { ...status, phase: PHASE.ready, build: { ...build, completedAt: metaTime(this.now()) } },
        [done, ready('True', READY_REASON.bundleReady, message)],
      );
      context.logger.info({ attempt: build.attempt }, 'Built CRCBundle');
      void this.env.ports.events.record(bundle, 'Normal', READY_REASON.bundleReady, message);
      return {};
    }
    await writeBuild(
      this.env,
      bundle,
      { ...status, ...published, build: { ...build, stage: next.name } },
      [done, ready('False', BUILD_REASON.building, `building: ${stageLabel(next)}`)],
    );
    void this.env.ports.events.record(
      bundle,
      'Normal',
      'BuildStageCompleted',
      `${stageLabel(stage)} completed; starting ${stageLabel(next)}`,
    );
    return {};
  }

  /** Past spec.build.deadlineSeconds: failed, naming the stage and what it waited for. */
  private timedOut(
    bundle: Bundle,
    build: BuildRecord,
    stage: BuildStage,
  ): Promise<ReconcileResult> {
    const waited = findCondition(bundle.status?.conditions, stage.condition)?.message;
    return this.fail(
      bundle,
      build,
      stage,
      new StepFailure(
        BUILD_REASON.timedOut,
        `the build did not finish within ${deadline(bundle)}s (spec.build.deadlineSeconds); it was in stage ${stageLabel(stage)}${waited ? `: ${waited}` : ''}`,
      ),
    );
  }

  /**
   * A create the apiserver refused: the stage says so (and an Event), and the pass is retried with
   * backoff (the error goes on to the runtime) until the refusal is lifted.
   */
  private async refused(bundle: Bundle, stage: BuildStage, message: string): Promise<void> {
    await writeBuild(this.env, bundle, bundle.status ?? {}, [
      { type: stage.condition, status: 'False', reason: BUILD_REASON.createRefused, message },
      ready('False', BUILD_REASON.building, `${stageLabel(stage)}: ${message}`),
    ]);
    void this.env.ports.events.record(bundle, 'Warning', BUILD_REASON.createRefused, message);
  }

  /** Failed for good: a failed build is not retried (a new CRCBundle is a new build). */
  private async fail(
    bundle: Bundle,
    build: BuildRecord,
    stage: BuildStage,
    failure: StepFailure,
  ): Promise<ReconcileResult> {
    const { reason, message } = failure;
    const text = `${stageLabel(stage)} failed: ${message}`;
    await writeBuild(
      this.env,
      bundle,
      {
        ...bundle.status,
        phase: PHASE.failed,
        build: { ...build, completedAt: metaTime(this.now()) },
      },
      [{ type: stage.condition, status: 'False', reason, message }, ready('False', reason, text)],
    );
    this.env.failures?.inc({ bundle: bundle.metadata.name, reason });
    void this.env.ports.events.record(bundle, 'Warning', reason, text);
    return {};
  }

  private now(): number {
    return this.env.ports.clock.now();
  }
}

function deadline(bundle: Bundle): number {
  return bundle.spec.build?.deadlineSeconds ?? DEFAULT_DEADLINE_SECONDS;
}
