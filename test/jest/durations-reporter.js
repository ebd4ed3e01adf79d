// Prints how long each test file took, slowest first, and the whole run against the suite's time
// budget; with GUESTCLUSTER_TEST_DURATIONS set, also writes them there as JSON (a CI artifact).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;

export default class DurationsReporter {
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    // No budget (0): the run's time is printed alone.
    this.budgetMs = (options.suiteBudgetSeconds ?? 0) * 1000;
    this.files = [];
    this.started = Date.now();
  }

  onRunStart() {
    this.started = Date.now();
  }

  onTestResult(test, result) {
    const { start, end } = result.perfStats;
    this.files.push({
      file: path.relative(this.rootDir, result.testFilePath),
      seconds: Number(((end - start) / 1000).toFixed(1)),
      failed: result.numFailingTests > 0 || Boolean(result.testExecError),
    });
  }

  async onRunComplete() {
    const wallMs = Date.now() - this.started;
    const files = [...this.files].sort((a, b) => b.seconds - a.seconds);
    const width = Math.max(0, ...files.map((f) => f.file.length));
    const lines = files.map(
      (f) =>
        `  ${f.file.padEnd(width)}  ${seconds(f.seconds * 1000).padStart(7)}${f.failed ? '  failed' : ''}`,
    );
    const over = wallMs > this.budgetMs ? `, over by ${seconds(wallMs - this.budgetMs)}` : '';
    const budget = this.budgetMs ? ` of a ${seconds(this.budgetMs)} budget${over}` : '';
    process.stderr.write(
      `\nTest files by duration (${files.length}):\n${lines.join('\n')}\n` +
        `Run: ${seconds(wallMs)}${budget}\n`,
    );
    const out = process.env.GUESTCLUSTER_TEST_DURATIONS;
    if (out)
      await writeFile(
        out,
        `${JSON.stringify({ wallSeconds: wallMs / 1000, budgetSeconds: this.budgetMs / 1000 || null, files }, null, 2)}\n`,
      );
  }
}
