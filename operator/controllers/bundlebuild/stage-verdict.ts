import { BUILD_REASON } from './build-conditions.js';

/*
 * What a stage of the build, and each part of it, answers (docs/bundle-build.md#stage-map):
 * `holds` (done; the next part or stage may go on), `record` (it recorded an object or a step in
 * the status draft, which is written before anything uses it: the pass ends), `wait` (not yet, and
 * why) or `fail` (the build fails with this reason). The shape is the step engine's verdict, so
 * that the stages can move onto that engine with import changes (ADR 0042).
 */

export type Nothing = Record<never, never>;

/** Why a stage waits: its condition's reason and message, and when to look again. */
export interface StageWait {
  reason: string;
  message: string;
  /** Looked at again after this long: nothing reports when it changes. */
  requeueAfterMs?: number;
}

export type StageVerdict<Out = Nothing> =
  { holds: Out } | { record: Nothing } | { wait: StageWait } | { fail: BuildFailure };

/** A part's answer once it holds, which hands nothing on. */
export const HOLDS: { holds: Nothing } = Object.freeze({ holds: Object.freeze({}) });
/** A part's answer once it recorded something: the pass writes the draft and ends. */
export const RECORDED: { record: Nothing } = Object.freeze({ record: Object.freeze({}) });

export function holds<Out>(out: Out): { holds: Out } {
  return { holds: out };
}

export function waiting(message: string, requeueAfterMs?: number): { wait: StageWait } {
  return {
    wait: {
      reason: BUILD_REASON.inProgress,
      message,
      ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }),
    },
  };
}

/** Thrown by a stage or a helper, or answered as `fail`: the build fails with this reason. */
export class BuildFailure extends Error {
  override name = 'BuildFailure';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The apiserver refused to create an object of the build (a ResourceQuota, an admission policy):
 * the stage says so and the pass is tried again with backoff; nothing is lost meanwhile.
 */
export class CreateRefused extends Error {
  override name = 'CreateRefused';
}

/** The verdict of `next` on what `verdict` holds; any other verdict as it is. */
export async function onHolds<A, B>(
  verdict: StageVerdict<A>,
  next: (out: A) => StageVerdict<B> | Promise<StageVerdict<B>>,
): Promise<StageVerdict<B>> {
  return 'holds' in verdict ? next(verdict.holds) : verdict;
}

/** Runs the parts of a stage in order while they hold; the first that does not is the answer. */
export async function inOrder(
  parts: readonly (() => Promise<StageVerdict<unknown>>)[],
): Promise<StageVerdict> {
  for (const part of parts) {
    const verdict = await part();
    if (!('holds' in verdict)) return verdict;
  }
  return HOLDS;
}
