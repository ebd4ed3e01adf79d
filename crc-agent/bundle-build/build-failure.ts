import { writeFile } from 'node:fs/promises';
import type { BuildStep, BuildStepOutputs, BuildStepResult } from '../../contracts/bundle-build.js';
import { STEP_STAGE } from '../../contracts/bundle-build.js';
import { MissingToolError } from '../errors.js';

/**
 * A step's failure as the bundle reports it: a CamelCase reason (the bundle's Ready reason) and a
 * message that says what failed and what a person can do. Never carries a secret.
 */
export class BuildFailure extends Error {
  override name = 'BuildFailure';
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The reason of a failure that is not one of the step's own: `<Stage><kind>`. */
export function stageReason(step: BuildStep, kind: string): string {
  return `${STEP_STAGE[step]}${kind}`;
}

/** The failure of a step whose tool the image lacks (`<Stage>ToolMissing`), when that is the cause. */
export function missingTool(step: BuildStep, cause: unknown): BuildFailure | undefined {
  if (!(cause instanceof MissingToolError)) return undefined;
  return new BuildFailure(stageReason(step, 'ToolMissing'), cause.message, { cause });
}

/** Kubernetes keeps at most 4096 bytes of a termination message. */
const LIMIT = 4096;

/** The step's result as its termination message JSON, cut to fit (the message is shortened). */
export function resultText(result: BuildStepResult): string {
  let text = JSON.stringify(result);
  if (Buffer.byteLength(text) <= LIMIT || result.ok) return text;
  let message = result.message;
  while (Buffer.byteLength(text) > LIMIT && message.length > 0) {
    message = message.slice(
      0,
      Math.max(0, message.length - (Buffer.byteLength(text) - LIMIT) - 16),
    );
    text = JSON.stringify({ ...result, message: `${message}…` });
  }
  return text;
}

export async function writeResult(file: string, result: BuildStepResult): Promise<void> {
  await writeFile(file, resultText(result), { mode: 0o644 });
}

export function success<S extends BuildStep>(
  step: S,
  outputs: BuildStepOutputs[S],
): BuildStepResult<S> {
  return { step, ok: true, outputs };
}
