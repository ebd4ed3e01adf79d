import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ensureBinaries, GENERATED_MODULE } from './go-build.js';
import { runCommand } from './run-command.js';

describe('ensureBinaries with sources of our own', () => {
  let cache: string | undefined;
  afterAll(async () => {
    if (cache) await rm(cache, { recursive: true, force: true });
  });

  it("builds our main package with the plan's tags, without go mod tidy", async () => {
    cache = await mkdtemp(path.join(os.tmpdir(), 'guestcluster-go-build-'));
    const binDir = path.join(cache, 'hello', 'bin');
    const lines: string[] = [];
    await ensureBinaries(['hello'], binDir, path.join(cache, 'build'), (l) => lines.push(l), [
      {
        name: 'hello',
        requires: [],
        replaces: () => Promise.resolve([]),
        ldflags: '-s -w',
        tags: ['loud'],
        tidy: false,
        sources: {
          'hello/main.go':
            'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println(greeting) }\n',
          'hello/loud.go': '//go:build loud\n\npackage main\n\nconst greeting = "HELLO"\n',
          'hello/quiet.go': '//go:build !loud\n\npackage main\n\nconst greeting = "hello"\n',
        },
        packages: { hello: `${GENERATED_MODULE}/hello` },
      },
    ]);

    const { stdout } = await runCommand(path.join(binDir, 'hello'), []);
    expect(stdout.trim()).toBe('HELLO');
    expect(lines.filter((l) => l.startsWith('Building hello'))).toHaveLength(1);
  });
});
