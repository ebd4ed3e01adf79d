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
  /** Resolves once the process has written `text` to its output. */
  logged: (text: string) => Promise<void>;
  probePort: number;
  metricsPort: number;
}

export async function startOperatorProcess(options: {
  identity: string;
  namespace: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
}): Promise<OperatorProcess> {
  const [probePort, metricsPort] = [await freePort(), await freePort()];
  const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
  const child = spawn(
    process.execPath,
    [
      cli,
      'operator',
      `--health-probe-bind-address=127.0.0.1:${probePort}`,
      `--metrics-bind-address=127.0.0.1:${metricsPort}`,
      '--metrics-secure=false',
      // Only the test's own namespace: other test files run operators on the same control plane.
      `--watch-namespace=${options.namespace}`,
      // CRCBundles are cluster-scoped: those of other test files running at the same time are not this operator's.
      '--controllers=clusterpool,clusterlease',
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
  const logged = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (!output().includes(text)) return;
        child.stdout.off('data', check);
        resolve();
      };
      child.stdout.on('data', check);
      child.once('exit', () =>
        reject(new Error(`The operator exited before logging "${text}":\n${output()}`)),
      );
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
