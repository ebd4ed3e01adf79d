import * as core from '@actions/core';
import type { ActionCore } from '../../action/action-core.js';

/** What a run of the Action's main left behind, when it runs in a terminal instead of a runner. */
export interface TerminalRun {
  actions: ActionCore;
  outputs: Map<string, string>;
  failure(): string | undefined;
}

/**
 * The Action's `@actions/core` surface for a terminal: inputs from a map, log lines and group
 * titles to `write`, outputs, state and exported variables kept in memory. Secrets are never
 * printed by the Action's code, so there is nothing to mask here.
 */
export function terminalActions(
  inputs: Record<string, string>,
  write: (line: string) => void,
): TerminalRun {
  const outputs = new Map<string, string>();
  const state = new Map<string, string>();
  let failed: string | undefined;
  const actions: ActionCore = {
    getInput: (name) => inputs[name] ?? '',
    setSecret: () => undefined,
    saveState: (name, value) => void state.set(name, String(value)),
    getState: (name) => state.get(name) ?? '',
    setOutput: (name, value) => void outputs.set(name, String(value)),
    exportVariable: () => undefined,
    info: (message) => write(`  ${message}`),
    warning: (message) => write(`  warning: ${String(message)}`),
    setFailed: (message) => {
      failed = String(message);
      write(`  failed: ${failed}`);
    },
    group: async (name, fn) => {
      write(`${name}:`);
      return fn();
    },
    // Writes to GITHUB_STEP_SUMMARY when set; without it the Action only warns.
    summary: core.summary,
  };
  return { actions, outputs, failure: () => failed };
}
