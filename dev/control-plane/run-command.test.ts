import { describe, expect, it } from '@jest/globals';
import { CommandFailedError, runCommand } from './run-command.js';

describe('runCommand', () => {
  it('reports the exit status of a program that exits without reading its input', async () => {
    // More than a pipe holds, so the write is still under way when the program has gone.
    const input = 'x'.repeat(8 * 1024 * 1024);
    await expect(runCommand('true', [], { input })).resolves.toEqual({ stdout: '', stderr: '' });
    await expect(runCommand('false', [], { input })).rejects.toBeInstanceOf(CommandFailedError);
  });
});
