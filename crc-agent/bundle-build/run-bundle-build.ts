import type { BuildStep, BuildStepResult } from '../../contracts/bundle-build.js';
import { BUILD_STEPS } from '../../contracts/bundle-build.js';
import { ConfigError } from '../config.js';
import { CancelledError, errorMessage, RetryTimeoutError } from '../errors.js';
import type { Logger } from '../logger.js';
import { loadBuildConfig } from './build-config.js';
import { BuildFailure, missingTool, stageReason, success, writeResult } from './build-failure.js';
import { GuestScriptError } from './build-guest.js';
import { StepContext } from './step-context.js';
import type { StepRunner } from './step-context.js';
import { runCustomize } from './steps/customize-step.js';
import { runDay2 } from './steps/day2-step.js';
import { runIgnition } from './steps/ignition-step.js';
import { runImagePin } from './steps/image-pin-step.js';
import { runInstallWait } from './steps/install-wait-step.js';
import { runDnsCheck, runIso, runPublish } from './steps/local-steps.js';
import { runPoweroff, runPresent } from './steps/power-steps.js';
import { runResolve } from './steps/resolve-step.js';
import { runSeal, runSealCheck, runZero } from './steps/seal-steps.js';

const RUNNERS: { [S in BuildStep]: StepRunner<S> } = {
  resolve: runResolve,
  'dns-check': runDnsCheck,
  ignition: runIgnition,
  iso: runIso,
  'install-wait': runInstallWait,
  day2: runDay2,
  poweroff: runPoweroff,
  present: runPresent,
  customize: runCustomize,
  'image-pin': runImagePin,
  seal: runSeal,
  'seal-check': runSealCheck,
  zero: runZero,
  publish: runPublish,
};

export interface BundleBuildDeps {
  log: Logger;
  signal: AbortSignal;
  env: Readonly<Record<string, string | undefined>>;
  now?: () => number;
}

/** Any error of a step as the failure the bundle reports. */
export function asFailure(step: BuildStep, error: unknown): BuildFailure {
  if (error instanceof BuildFailure) return error;
  const tool = missingTool(step, error);
  if (tool) return tool;
  const message = errorMessage(error);
  if (error instanceof CancelledError)
    return new BuildFailure(
      stageReason(step, 'Cancelled'),
      `the step was stopped (${message}); the operator starts it again when the build goes on`,
    );
  if (error instanceof RetryTimeoutError && message.includes('SSH on '))
    return new BuildFailure(
      stageReason(step, 'GuestUnreachable'),
      `${message}; the guest never opened SSH: check the VM with virtctl console, and that its Service selects the launcher pod`,
    );
  if (error instanceof GuestScriptError)
    return new BuildFailure(
      stageReason(step, 'GuestCommandFailed'),
      `${message}; the script is crc-agent/bundle-build/guest/${error.script}.sh, safe to run again`,
    );
  return new BuildFailure(stageReason(step, 'Failed'), `${message}; the step is safe to run again`);
}

/**
 * `crc-agent bundle-build <step>`: runs one step, writes its result as the termination message
 * (outputs on success; a reason and a message on failure) and returns the exit code.
 */
export async function runBundleBuild(step: string, deps: BundleBuildDeps): Promise<number> {
  const { log } = deps;
  if (!(BUILD_STEPS as readonly string[]).includes(step)) {
    log.error(
      `crc-agent bundle-build: unknown step "${step}". To fix: use one of ${BUILD_STEPS.join(', ')}`,
    );
    return 1;
  }
  const known = step as BuildStep;
  const resultFile = (deps.env.TERMINATION_MESSAGE_PATH ?? '').trim() || '/dev/termination-log';
  let result: BuildStepResult;
  let context: StepContext | undefined;
  try {
    const config = loadBuildConfig(known, deps.env);
    context = new StepContext(config, log, deps.signal, deps.now);
    log.info(
      {
        step: known,
        bundle: config.bundleName,
        attempt: config.attempt,
        vmiUid: config.vmiUid || undefined,
      },
      `Running bundle-build step ${known}`,
    );
    const outputs = await RUNNERS[known](context);
    result = success(known, outputs);
    log.info(
      { step: known, outputs, vmiUid: config.vmiUid || undefined },
      `Bundle-build step ${known} done`,
    );
  } catch (error) {
    const failure =
      error instanceof ConfigError
        ? new BuildFailure(
            'BuildJobInvalid',
            `${error.message}; the operator writes the build Job's environment, so this is a bug or a hand-made Job`,
          )
        : asFailure(known, error);
    result = { step: known, ok: false, reason: failure.reason, message: failure.message };
    log.error(
      { step: known, reason: failure.reason },
      `crc-agent bundle-build ${known} failed: ${failure.message}`,
    );
  } finally {
    context?.close();
  }
  await writeResult(resultFile, result).catch((error: unknown) =>
    log.warn(
      { error: errorMessage(error), file: resultFile },
      'Could not write the termination message',
    ),
  );
  return result.ok ? 0 : 1;
}
