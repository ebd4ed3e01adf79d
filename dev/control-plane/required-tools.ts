import { runCommand } from './run-command.js';

/** A program of the machine's that the local environment or the tests run, and how to get it. */
export interface RequiredTool {
  command: string;
  /** Arguments that make it answer at once without doing anything (its version). */
  probe: string[];
  /** What it is needed for. */
  purpose: string;
  /** Which package to install, per system. */
  install: string;
}

export const QEMU_IMG: RequiredTool = {
  command: 'qemu-img',
  probe: ['--version'],
  purpose: "makes the test CRC bundle's qcow2 disk",
  install:
    'Debian and Ubuntu: apt-get install qemu-utils; Fedora and RHEL: dnf install qemu-img; macOS: brew install qemu',
};

/** The programs are missing (or do not run): the message names each, why, and what to install. */
export class MissingToolError extends Error {
  override name = 'MissingToolError';
}

/**
 * Checks, before anything starts, that every tool runs; reports all that do not at once. Go is
 * checked where the control plane is built (go-build.ts), since cached binaries
 * need no Go.
 */
export async function requireTools(
  tools: readonly RequiredTool[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const missing: string[] = [];
  for (const tool of tools) {
    try {
      await runCommand(tool.command, tool.probe, { env });
    } catch (error) {
      const why =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `no \`${tool.command}\` command on the PATH`
          : `\`${tool.command} ${tool.probe.join(' ')}\` failed: ${String(error)}`;
      missing.push(`${why} (it ${tool.purpose}). Install it: ${tool.install}.`);
    }
  }
  if (missing.length > 0) throw new MissingToolError(missing.join('\n'));
}
