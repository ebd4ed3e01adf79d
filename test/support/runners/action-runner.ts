import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../../dev/control-plane/project-root.js';

/**
 * Runs the Action's committed bundles the way a GitHub runner does: Node 24 on
 * action/dist/{main,post,extend}/index.js, inputs as INPUT_* variables, the runner's file commands
 * (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_STATE, GITHUB_STEP_SUMMARY) as files that are read back
 * afterwards, main's saved state handed to post as STATE_* variables, and `::add-mask::`
 * commands taken out of the visible log the way the runner consumes them.
 */
export interface StepResult {
  exitCode: number | null;
  /** What a person reading the job's log sees (workflow commands that the runner consumes removed). */
  log: string;
  /** Values registered with `::add-mask::`. */
  masks: string[];
  outputs: Record<string, string>;
  exportedEnv: Record<string, string>;
  state: Record<string, string>;
  summary: string;
}

export interface RunningStep {
  /** Resolves once the step's log contains `text`. */
  logged(text: string): Promise<void>;
  signal(name: NodeJS.Signals): void;
  done: Promise<StepResult>;
}

/** The runner's identity of one job run. */
export const RUN_ENV = {
  GITHUB_ACTIONS: 'true',
  GITHUB_REPOSITORY: 'octo-org/app',
  GITHUB_WORKFLOW: 'CI',
  GITHUB_RUN_ID: '9876543210',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_JOB: 'e2e',
  GITHUB_ACTION: '__guestcluster_lease',
  GITHUB_SERVER_URL: 'https://github.com',
  RUNNER_NAME: 'GitHub Actions 7',
};

export class ActionJob {
  private constructor(
    readonly workDir: string,
    private readonly runEnv: Record<string, string>,
    private state: Record<string, string> = {},
  ) {}

  /** A job with its own RUNNER_TEMP; `runEnv` overrides the run's identity. */
  static async create(runEnv: Record<string, string> = {}): Promise<ActionJob> {
    const workDir = await mkdtemp(path.join(os.tmpdir(), 'gc-action-'));
    return new ActionJob(workDir, { ...RUN_ENV, ...runEnv });
  }

  get runnerTemp(): string {
    return path.join(this.workDir, 'runner-temp');
  }

  /** Starts the main step; its saved state is kept for a later `post()`. */
  main(inputs: Record<string, string>): RunningStep {
    return this.start('main', inputs, {});
  }

  /** Runs the post step with the same inputs and main's state, as the runner does. */
  post(inputs: Record<string, string>): Promise<StepResult> {
    const stateEnv = Object.fromEntries(
      Object.entries(this.state).map(([key, value]) => [`STATE_${key}`, value]),
    );
    return this.start('post', inputs, stateEnv).done;
  }

  /** Runs the companion action guestcluster/lease/extend (extend/action.yml) as a later step. */
  extend(inputs: Record<string, string>): Promise<StepResult> {
    return this.start('extend', inputs, {}).done;
  }

  private start(
    entry: 'main' | 'post' | 'extend',
    inputs: Record<string, string>,
    extraEnv: Record<string, string>,
  ): RunningStep {
    const files = {
      GITHUB_OUTPUT: path.join(this.workDir, `${entry}-output`),
      GITHUB_ENV: path.join(this.workDir, `${entry}-env`),
      GITHUB_STATE: path.join(this.workDir, `${entry}-state`),
      GITHUB_STEP_SUMMARY: path.join(this.workDir, `${entry}-summary`),
      GITHUB_PATH: path.join(this.workDir, `${entry}-path`),
    };
    const inputEnv = Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [
        `INPUT_${name.replace(/ /g, '_').toUpperCase()}`,
        value,
      ]),
    );
    const ready = Promise.all(Object.values(files).map((file) => writeFile(file, '')));
    let output = '';
    const waiters: { text: string; resolve: () => void }[] = [];
    const child = ready.then(() => {
      const process_ = spawn(
        path.join(projectRoot(), 'node_modules', '.bin', 'node'),
        [path.join(projectRoot(), 'action', 'dist', entry, 'index.js')],
        {
          cwd: this.workDir,
          env: {
            PATH: process.env.PATH,
            HOME: process.env.HOME,
            RUNNER_TEMP: this.runnerTemp,
            ...this.runEnv,
            ...files,
            ...inputEnv,
            ...extraEnv,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const collect = (chunk: Buffer): void => {
        output += chunk.toString();
        for (const waiter of waiters.filter((w) => output.includes(w.text))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      };
      process_.stdout.on('data', collect);
      process_.stderr.on('data', collect);
      return process_;
    });
    const done = child.then(
      (process_) =>
        new Promise<StepResult>((resolve, reject) => {
          process_.once('error', reject);
          process_.once('close', (exitCode) => {
            resolve(this.collect(exitCode, output, files));
          });
        }),
    );
    return {
      logged: (text) =>
        new Promise((resolve, reject) => {
          if (output.includes(text)) return resolve();
          waiters.push({ text, resolve });
          done.then(
            () => reject(new Error(`The step ended without logging "${text}":\n${output}`)),
            reject,
          );
        }),
      signal: (name) => void child.then((process_) => process_.kill(name)),
      done,
    };
  }

  private async collect(
    exitCode: number | null,
    output: string,
    files: Record<string, string>,
  ): Promise<StepResult> {
    const read = (name: string): Promise<string> => readFile(files[name]!, 'utf8');
    const masks: string[] = [];
    const visible: string[] = [];
    for (const line of output.split('\n')) {
      const mask = /^::add-mask::(.*)$/.exec(line);
      if (mask) masks.push(unescapeCommandData(mask[1]!));
      else visible.push(line);
    }
    const state = parseFileCommands(await read('GITHUB_STATE'));
    this.state = { ...this.state, ...state };
    return {
      exitCode,
      log: visible.join('\n'),
      masks,
      outputs: parseFileCommands(await read('GITHUB_OUTPUT')),
      exportedEnv: parseFileCommands(await read('GITHUB_ENV')),
      state,
      summary: await read('GITHUB_STEP_SUMMARY'),
    };
  }
}

/** Workflow command data escapes %, CR and LF (as the runner's parser undoes). */
function unescapeCommandData(data: string): string {
  return data.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

/** Reads `name=value` lines and `name<<DELIMITER` blocks, as the runner does. */
export function parseFileCommands(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      result[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      result[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return result;
}
