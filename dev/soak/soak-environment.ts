import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ApiClient } from '../../client/kube/api-client.js';
import { writeSecretFile } from '../control-plane/kubeconfig-file.js';
import { LocalControlPlane } from '../control-plane/control-plane.js';
import { installProjectCrds } from '../control-plane/install-crds.js';
import { LocalOperator } from '../local/local-operator.js';
import { TestMirror } from '../platform/bundles/bundle-fixtures.js';
import { SimulatedPlatform, TEST_AGENT_IMAGE } from '../platform/simulated-platform.js';
import type { AdminAccess } from '../support/admin-access.js';
import { adminAccessFromFile } from '../support/admin-access.js';
import { SOAK_REPOSITORY, SoakGitHub } from './soak-github.js';
import { SOAK, seedSoak } from './soak-seed.js';
import { WatchDelayProxy } from './watch-delay-proxy.js';

/** Two nodes, so that a drained one leaves room for what it ran. */
const NODES = [
  { cpu: '256', memory: '1Ti', pods: 500 },
  { suffix: 'b', cpu: '256', memory: '1Ti', pods: 500 },
];
/** The operator asks GitHub often here, so that a completed job's lease goes within seconds. */
const GITHUB_POLL_INTERVAL = '5s';

type Stoppable = { stop(): Promise<void> };

/**
 * The local environment's parts, started for one soak in the control plane's temporary state
 * folder: a real control plane, the simulated platform (crc and hcp, two nodes), a bundle mirror,
 * the GitHub stand-in, and the operator as a process of its own (restarted when it dies, as its
 * Deployment's kubelet would) behind the watch-delay proxy.
 */
export class SoakEnvironment {
  /** Each pid the operator ran with, in order: a restart adds one. */
  readonly operatorPids: number[] = [];
  private readonly parts: Stoppable[] = [];
  plane!: LocalControlPlane;
  admin!: AdminAccess;
  api!: ApiClient;
  platform!: SimulatedPlatform;
  github!: SoakGitHub;
  proxy!: WatchDelayProxy;
  operator!: LocalOperator;

  private constructor(private readonly log: (line: string) => void) {}

  static async start(log: (line: string) => void): Promise<SoakEnvironment> {
    const environment = new SoakEnvironment(log);
    try {
      await environment.startParts();
    } catch (error) {
      await environment.stop();
      throw error;
    }
    return environment;
  }

  get stateDir(): string {
    return this.plane.stateDir;
  }

  async stop(): Promise<void> {
    await this.operator?.stop();
    for (const part of this.parts.splice(0)) await part.stop().catch(() => undefined);
    await this.api?.close();
    await this.plane?.stop();
  }

  private async startParts(): Promise<void> {
    const { log } = this;
    this.plane = await LocalControlPlane.start({
      log,
      beforeControllers: async (kubeconfig) => void (await installProjectCrds(kubeconfig, log)),
    });
    this.admin = adminAccessFromFile(this.plane.kubeconfigPath);
    this.api = new ApiClient(this.admin);
    const token = randomBytes(16).toString('hex');
    await seedSoak(
      this.api,
      { binary: this.plane.binaries.kubectl, kubeconfig: this.plane.kubeconfigPath },
      token,
    );
    this.platform = await SimulatedPlatform.startPlatform(this.admin, this.api, {
      namespaces: [SOAK.namespace],
      operatorNamespace: SOAK.operatorNamespace,
      crc: {},
      hcp: true,
      nodes: NODES,
      log: (line) => log(`platform: ${line}`),
    });
    this.parts.unshift(this.platform);
    log(
      `Started the simulated platform (crc and hcp) on nodes ${this.platform.nodeNames.join(', ')}`,
    );
    const mirror = await TestMirror.start();
    this.parts.unshift(mirror);
    await mirror.publish(SOAK.crcVersion);
    this.github = await SoakGitHub.start(token);
    this.parts.unshift(this.github);
    const caFile = path.join(this.stateDir, 'github-ca.crt');
    await writeSecretFile(caFile, this.github.ca);
    this.proxy = await WatchDelayProxy.start(this.plane.server);
    this.parts.unshift(this.proxy);
    log(
      `Serving the GitHub stand-in at ${this.github.url}; the operator reaches the apiserver through ${this.proxy.url}`,
    );
    this.operator = await LocalOperator.start({
      admin: this.admin,
      dir: this.stateDir,
      server: this.proxy.url,
      env: {
        CRC_AGENT_IMAGE: TEST_AGENT_IMAGE,
        CRC_BUNDLE_MIRROR_URL: mirror.baseUrl,
        HTTPS_PROXY: this.platform.router.proxyUrl,
        NO_PROXY: '127.0.0.1,localhost',
        GITHUB_CREDENTIALS_SECRET: SOAK.githubSecret,
        GITHUB_API_URL: this.github.url,
        GITHUB_CA_FILE: caFile,
        GITHUB_ALLOWED_REPOSITORIES: SOAK_REPOSITORY,
        GITHUB_POLL_INTERVAL,
        GITHUB_NAMESPACE_REQUESTS_PER_HOUR: '1000000',
        GITHUB_NAMESPACE_MAX_RUNS: '1000',
      },
      log,
      onStart: (pid) => void (pid && this.operatorPids.push(pid)),
    });
  }
}
