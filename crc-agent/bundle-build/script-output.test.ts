import { describe, expect, it } from '@jest/globals';
import { epochResult, parseScriptOutput, requiredResult } from './script-output.js';

describe('parseScriptOutput', () => {
  it('reads result and check lines and ignores everything else', () => {
    const output = parseScriptOutput(
      [
        'some tool chatter',
        'result phase live',
        'result clock 1700000000',
        'result empty',
        'check kubelet-disabled pass disabled',
        'check tap0 fail tap0',
        'checks that are not lines of ours',
      ].join('\n'),
    );
    expect(Object.fromEntries(output.results)).toEqual({
      phase: 'live',
      clock: '1700000000',
      empty: '',
    });
    expect(output.checks).toEqual([
      { name: 'kubelet-disabled', passed: true, detail: 'disabled' },
      { name: 'tap0', passed: false, detail: 'tap0' },
    ]);
  });

  it('names the script and key of a missing or malformed result', () => {
    const output = parseScriptOutput('result clock soon\n');
    expect(() => requiredResult(output, 'install-status', 'phase')).toThrow(
      'guest script install-status printed no "result phase" line',
    );
    expect(() => epochResult(output, 'install-status')).toThrow('not epoch seconds');
  });
});
