import type * as core from '@actions/core';

/** The parts of `@actions/core` the Action uses; tests may hand in their own. */
export type ActionCore = Pick<
  typeof core,
  | 'getInput'
  | 'setSecret'
  | 'getIDToken'
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
