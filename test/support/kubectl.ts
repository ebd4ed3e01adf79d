import type { CommandResult } from '../../dev/control-plane/run-command.js';
import { runCommand } from '../../dev/control-plane/run-command.js';
import { testEnv } from './test-env.js';

/** Runs the control plane's own kubectl build against the run's control plane. */
export function kubectl(args: readonly string[], input?: string): Promise<CommandResult> {
  return runCommand(
    testEnv('kubectl'),
    ['--kubeconfig', testEnv('kubeconfig'), ...args],
    input === undefined ? {} : { input },
  );
}
