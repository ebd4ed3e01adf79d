import type * as core from '@actions/core';

/** The parts of `@actions/core` the Action uses; tests may hand in their own. */
export type ActionCore = Pick<
  typeof core,
  | 'getInput'
  | 'setSecret'
  | 'saveState'
  | 'getState'
  | 'setOutput'
  | 'exportVariable'
  | 'info'
  | 'warning'
  | 'setFailed'
  | 'group'
  | 'summary'
>;

/** An error's message, with its cause's (what fetch's "fetch failed" leaves out: "other side closed"). */
export const errorMessage = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
};
