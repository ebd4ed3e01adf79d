import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  GUEST_SCRIPTS,
  guestScript,
  guestScriptsDir,
  scriptCommand,
  scriptMarker,
  shellWord,
} from './guest-scripts.js';

const files = readdirSync(guestScriptsDir()).filter((file) => file.endsWith('.sh'));
/** shellcheck when it is installed (Debian: shellcheck); the syntax check always runs. */
const shellcheck = spawnSync('shellcheck', ['--version']).status === 0;

describe('the guest scripts', () => {
  it('are exactly the listed ones, each starting with its own step marker', () => {
    expect(files.map((file) => file.slice(0, -3)).sort()).toEqual([...GUEST_SCRIPTS].sort());
    for (const name of GUEST_SCRIPTS) expect(scriptMarker(guestScript(name))).toBe(name);
  });

  it.each(GUEST_SCRIPTS)('%s is valid bash', (name) => {
    const check = spawnSync('bash', ['-n'], { input: guestScript(name), encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.each(GUEST_SCRIPTS)('%s stops at the first failing command', (name) => {
    expect(guestScript(name)).toMatch(/^set -[eu]+o pipefail$/m);
  });

  it('leave what follows them on stdin to be read when they read stdin', () => {
    for (const name of GUEST_SCRIPTS) {
      const text = guestScript(name);
      if (!/^\s*IFS= read -r /m.test(text)) continue;
      // Called on the last line: bash has read the whole body before `read` runs.
      expect(text.trimEnd().split('\n').at(-1)).toBe('main "$@"');
    }
  });

  (shellcheck ? it : it.skip)('pass shellcheck', () => {
    const run = spawnSync('shellcheck', ['-s', 'bash', ...files], {
      cwd: guestScriptsDir(),
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('');
    expect(run.status).toBe(0);
  });

  it('hand stdin data to the script body, not to bash as commands', () => {
    const script =
      'set -euo pipefail\nmain() {\n  IFS= read -r line\n  echo "result got $line"\n}\nmain "$@"\n';
    const run = spawnSync('bash', ['-s', '--', 'x'], {
      input: `${script}a line of data\n`,
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('result got a line of data\n');
  });
});

describe('script commands', () => {
  it('quote arguments that are not plain words', () => {
    expect(shellWord('192.168.126.11')).toBe('192.168.126.11');
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(scriptCommand(['/var/lib/x', 'a b'])).toBe("sudo bash -s -- /var/lib/x 'a b'");
  });
});
