import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiClient } from '../../client/kube/api-client.js';
import type { AdminAccess } from '../support/admin-access.js';
import { serviceAccountToken } from '../support/service-account-token.js';
import { parse, stringify } from 'yaml';
import { writeSecretFile } from '../control-plane/kubeconfig-file.js';
import { freePort } from '../control-plane/free-port.js';
import { projectRoot } from '../control-plane/project-root.js';

const DEPLOYMENT = path.join(projectRoot(), 'operator', 'deploy', 'deployment.yaml');
const POD_NAME = 'guestcluster-operator-controller-manager-local';
/** Tokens live an hour, as projected ServiceAccount tokens do; the kubelet renews them early. */
const TOKEN_SECONDS = 3600;
const TOKEN_RENEW_MS = 40 * 60_000;
const RESTART_DELAY_MS = 1000;

interface ContainerEnv {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath?: string } };
}

interface DeploymentManifest {
  metadata: { namespace: string };
  spec: {
    template: {
      spec: {
        serviceAccountName: string;
        containers: { args: string[]; env?: ContainerEnv[] }[];
      };
    };
  };
}

export interface LocalOperatorOptions {
  /** Admin access, to request the operator's ServiceAccount tokens (the kubelet's part). */
  admin: AdminAccess;
  /** Where its kubeconfig, token and log go. */
  dir: string;
  /** What differs from the Deployment here: the agent image, the bundle mirror, the proxy. */
  env: Record<string, string>;
  log: (line: string) => void;
  /** Each time a process of the operator starts (restarts included). */
  onStart?: (pid: number | undefined) => void;
  /** The apiserver URL the operator is given, when not the admin's (the soak puts a proxy between). */
  server?: string;
}

/**
 * The operator as its Deployment runs it (operator/deploy/deployment.yaml: arguments,
 * environment, ServiceAccount), but as a local process: this plays the kubelet, giving it a
 * renewed token of its own ServiceAccount and restarting it when it dies.
 */
export class LocalOperator {
  private child: ChildProcess | undefined;
  private stopping = false;
  private renewal: NodeJS.Timeout | undefined;

  private constructor(
    private readonly options: LocalOperatorOptions,
    private readonly manifest: DeploymentManifest,
    private readonly ports: { probes: number; metrics: number; tokenExchange: number },
  ) {}

  static async start(options: LocalOperatorOptions): Promise<LocalOperator> {
    const manifest = parse(await readFile(DEPLOYMENT, 'utf8')) as DeploymentManifest;
    const operator = new LocalOperator(options, manifest, {
      probes: await freePort(),
      metrics: await freePort(),
      tokenExchange: await freePort(),
    });
    await operator.writeCredentials();
    operator.renewal = setInterval(
      () => void operator.writeCredentials().catch((error: Error) => options.log(error.message)),
      TOKEN_RENEW_MS,
    );
    operator.run();
    return operator;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get namespace(): string {
    return this.manifest.metadata.namespace;
  }

  get logPath(): string {
    return path.join(this.options.dir, 'operator.log');
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.renewal);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  private get kubeconfigPath(): string {
    return path.join(this.options.dir, 'operator.kubeconfig');
  }

  private get tokenPath(): string {
    return path.join(this.options.dir, 'operator.token');
  }

  /** A kubeconfig that reads the ServiceAccount's token from a file, renewed in place. */
  private async writeCredentials(): Promise<void> {
    const account = this.manifest.spec.template.spec.serviceAccountName;
    const api = new ApiClient(this.options.admin);
    const token = await serviceAccountToken(api, this.namespace, account, TOKEN_SECONDS).finally(
      () => api.close(),
    );
    await writeSecretFile(this.tokenPath, token);
    const cluster = this.options.admin.getCurrentCluster();
    const user = `system:serviceaccount:${this.namespace}:${account}`;
    await writeSecretFile(
      this.kubeconfigPath,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'local',
            cluster: {
              server: this.options.server ?? cluster.server,
              'certificate-authority-data': cluster.caData,
            },
          },
        ],
        users: [{ name: user, user: { tokenFile: this.tokenPath } }],
        contexts: [{ name: 'operator', context: { cluster: 'local', user } }],
        'current-context': 'operator',
      }),
    );
  }

  /** The Deployment's environment, with the downward API resolved and the local differences. */
  private environment(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    const fields: Record<string, string> = {
      'metadata.namespace': this.namespace,
      'metadata.name': POD_NAME,
    };
    for (const variable of this.manifest.spec.template.spec.containers[0]!.env ?? []) {
      const field = variable.valueFrom?.fieldRef?.fieldPath;
      env[variable.name] = field ? fields[field] : variable.value;
    }
    return { ...env, ...this.options.env, KUBECONFIG: this.kubeconfigPath };
  }

  /**
   * The Deployment's arguments, with the probe, metrics and token-exchange ports on free loopback
   * ports: two environments on one machine (`local up` and a soak) never clash on a fixed port.
   */
  private arguments(): string[] {
    const ports: Record<string, number> = {
      '--health-probe-bind-address': this.ports.probes,
      '--metrics-bind-address': this.ports.metrics,
      '--token-exchange-bind-address': this.ports.tokenExchange,
    };
    return this.manifest.spec.template.spec.containers[0]!.args.map((arg) => {
      const flag = arg.split('=')[0]!;
      return flag in ports ? `${flag}=127.0.0.1:${ports[flag]}` : arg;
    });
  }

  private run(): void {
    const cli = path.join(projectRoot(), 'dist', 'operator', 'cli', 'main.js');
    const logFd = openSync(this.logPath, 'a');
    const child = spawn(process.execPath, [cli, ...this.arguments()], {
      env: this.environment(),
      stdio: ['ignore', logFd, logFd],
    });
    closeSync(logFd);
    this.child = child;
    this.options.onStart?.(child.pid);
    this.options.log(`Started the operator (pid ${child.pid}) as ServiceAccount of its Deployment`);
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.options.log(
        `The operator exited with ${code ?? signal}; restarting it, as the kubelet would (log: ${this.logPath})`,
      );
      setTimeout(() => this.stopping || this.run(), RESTART_DELAY_MS).unref();
    });
  }
}
