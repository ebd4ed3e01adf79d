// Starts the slowest test files first, by the durations of a recorded run
// (test/jest/recorded-durations.json, the durations reporter's output of a CI run), so that a long
// file does not start late and stretch the run while the other workers sit idle. Jest would order
// them by its own cache of earlier runs, which a fresh checkout does not have, and else by size.
// A file the record does not know counts as taking UNKNOWN_SECONDS.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import TestSequencer from '@jest/test-sequencer';

const UNKNOWN_SECONDS = 15;

export default class SlowestFirstSequencer extends TestSequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const record = path.join(import.meta.dirname, 'recorded-durations.json');
    const { files } = JSON.parse(readFileSync(record, 'utf8'));
    const seconds = new Map(files.map((f) => [f.file, f.seconds]));
    const root = path.resolve(import.meta.dirname, '..', '..');
    const expected = (test) => seconds.get(path.relative(root, test.path)) ?? UNKNOWN_SECONDS;
    // Stable: files of equal weight keep Jest's order (failed ones first).
    return [...ordered].sort((a, b) => expected(b) - expected(a));
  }
}
