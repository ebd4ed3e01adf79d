import { randomBytes } from 'node:crypto';
import { profileOf } from '../../api/vm-profile.js';
import { startedWait } from '../../api/waits.js';
import type { ReconcileResult } from '../../runtime/controller.js';
import { PHASE, READY_REASON } from '../bundles/bundle-conditions.js';
import type { PreparationSlots } from '../bundles/preparation-slots.js';
import { BUILD_REASON, ready } from './build-conditions.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import type { BuildEnv } from './build-env.js';
import { writeBuild } from './build-env.js';
import { InvalidPullSecret, MissingInput, readBuildInputs } from './build-inputs.js';
import type { Bundle } from './build-meta.js';
import type { BuildRecord } from './build-record.js';
import { BUILD_STAGES } from './build-stages.js';
import { stageLabel } from './stage-row.js';

const BUILD_NEEDS_A_PERSON: ReadonlySet<string> = new Set<string>([
  BUILD_REASON.waitingForInputs,
  BUILD_REASON.invalidPullSecret,
]);

const attemptId = (): string =>
  Array.from(randomBytes(6), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

/**
 * A build that has not started: once its inputs exist and a build slot is free
 * (--max-building-bundles), it records the attempt, the inputs' digests and the profile before
 * anything is made for it (ADR 0031). From then on it holds its slot (phase Preparing).
 */
export async function startBuild(
  env: BuildEnv,
  slots: PreparationSlots,
  bundle: Bundle,
): Promise<ReconcileResult> {
  let records;
  try {
    records = (await readBuildInputs(env.ports.client, bundle, env.settings.operatorNamespace))
      .records;
  } catch (error) {
    if (!(error instanceof MissingInput)) throw error;
    await waitForInputs(env, bundle, error);
    return {};
  }
  const slot = await slots.take(bundle);
  if ('waiting' in slot) {
    await writeBuild(env, bundle, { ...bundle.status, phase: PHASE.pending }, [
      ready('False', READY_REASON.waitingForBuildSlot, slot.waiting),
    ]);
    return {};
  }
  try {
    await recordAttempt(env, bundle, records);
  } finally {
    slot.release();
  }
  return {};
}

/**
 * Pending until its inputs exist and the pull secret is usable; a person must act on either, so
 * the write that starts the wait records one Warning Event (docs/reference/kinds.md#waits-that-need-a-person).
 */
async function waitForInputs(env: BuildEnv, bundle: Bundle, missing: MissingInput): Promise<void> {
  const reason =
    missing instanceof InvalidPullSecret
      ? BUILD_REASON.invalidPullSecret
      : BUILD_REASON.waitingForInputs;
  const written = await writeBuild(env, bundle, { ...bundle.status, phase: PHASE.pending }, [
    ready('False', reason, missing.message),
  ]);
  const started = startedWait(
    bundle.status?.conditions,
    written.status?.conditions,
    'Ready',
    BUILD_NEEDS_A_PERSON,
  );
  if (started) void env.ports.events.record(written, 'Warning', started.reason, started.message);
}

/** The attempt, written with phase Preparing, and its Event. */
async function recordAttempt(
  env: BuildEnv,
  bundle: Bundle,
  records: BuildRecord['inputs'],
): Promise<void> {
  const spec = bundle.spec.build!;
  const profile = profileOf(bundle)!;
  const first = BUILD_STAGES[0]!;
  const build: BuildRecord = {
    attempt: attemptId(),
    startedAt: metaTime(env.ports.clock.now()),
    stage: first.name,
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
  await writeBuild(env, bundle, { ...bundle.status, phase: PHASE.preparing, build }, [
    ready('False', BUILD_REASON.building, `building: ${stageLabel(first)}`),
  ]);
  void env.ports.events.record(
    bundle,
    'Normal',
    'BuildStarted',
    `Build attempt ${build.attempt} started from ${spec.releaseImage} with profile ${profile.name}; stage ${stageLabel(first)}`,
  );
}
