import { OPERATOR_NODE_OPTIONS } from '../../../operator/cli/node-options.js';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../../dev/control-plane/project-root.js';
import { freePort } from '../../../dev/control-plane/free-port.js';
import { testEnv } from '../test-env.js';

/** A `guestcluster operator` process under test, with its output collected. */
export interface OperatorProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  /** Resolves once the process has written `text` to its output (rejects after `timeoutMs`, if given). */
  logged: (text: string, timeoutMs?: number) => Promise<void>;
  probePort: number;
  metricsPort: number;
}

/** Where the process acts: the test's namespace, or everything carrying a world's labels. */
function placeArgs(namespace: string, scopeLabels: Record<string, string> | undefined): string[] {
  if (scopeLabels)
    return [
      `--scope-labels=${Object.entries(scopeLabels)
        .map(([key, value]) => `${key}=${value}`)
        .join(',')}`,
    ];
  return [
    // Only the test's own namespace: other test files run operators on the same control plane.
    `--watch-namespace=${namespace}`,
    // CRCBundles are cluster-scoped: those of other test files running at the same time are not this operator's.
    '--controllers=clusterpool,clusterlease',
  ];
}

export async function startOperatorProcess(options: {
  identity: string;
  namespace: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** The CLI to run, if not this checkout's build: a previous release's (test/upgrade). */
  cli?: string;
  /**
   * Every controller, for the namespaces and cluster-scoped objects carrying these labels
   * (--scope-labels; hcp control planes live in namespaces of their own), instead of the pool
   * and lease controllers for `namespace` alone.
   */
  scopeLabels?: Record<string, string>;
}): Promise<OperatorProcess> {
  const [probePort, metricsPort] = [await freePort(), await freePort()];
  const cli = options.cli ?? path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
  const child = spawn(
    process.execPath,
    [
      cli,
      'operator',
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      '--metrics-secure=false',
      ...placeArgs(options.namespace, options.scopeLabels),
      ...(options.args ?? []),
    ],
    {
      env: {
        ...process.env,
        KUBECONFIG: testEnv('kubeconfig'),
        OPERATOR_NAMESPACE: options.namespace,
        // As its Deployment runs it.
        NODE_OPTIONS: OPERATOR_NODE_OPTIONS,
        POD_NAME: options.identity,
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  const output = (): string => Buffer.concat(chunks).toString('utf8');
  const collect = (chunk: Buffer): number => chunks.push(chunk);
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const logged = (text: string, timeoutMs?: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              child.stdout.off('data', check);
              reject(
                new Error(
                  `The operator did not log "${text}" within ${timeoutMs} ms:\n${output()}`,
                ),
              );
            }, timeoutMs);
      const check = (): void => {
        if (!output().includes(text)) return;
        child.stdout.off('data', check);
        clearTimeout(timer);
        resolve();
      };
      child.stdout.on('data', check);
      child.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`The operator exited before logging "${text}":\n${output()}`));
      });
      check();
    });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    logged,
    output: () => Buffer.concat(chunks).toString('utf8'),
    probePort,
    metricsPort,
  };
}
