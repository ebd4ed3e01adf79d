import type { KubeConfig } from '@kubernetes/client-node';
import ssh2 from 'ssh2';
import { pino } from 'pino';
import { SECRETS } from '../../operator/api/resources.js';
import { guestApiProbe } from '../../operator/controllers/clusterinstance/guest-api-probe.js';
import { registerControllers } from '../../operator/controllers/register-controllers.js';
import type { ApiClient, ClusterAccess } from '../../operator/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { Logger } from '../../operator/runtime/logger.js';
import { Manager } from '../../operator/runtime/manager.js';
import { createPullSecret } from '../hcp/hcp-environment.js';
import { TEST_AGENT_IMAGE } from '../operator/bundle-fixtures.js';
import { testConfig } from '../operator/test-manager.js';
import { ServiceBackends } from '../platform/service-backends.js';
import { SimulatedCdi } from '../platform/simulated-cdi.js';
import { SimulatedCrcGuests } from '../platform/simulated-crc-guests.js';
import type { SimulatedCrcGuestsOptions } from '../platform/simulated-crc-guests.js';
import { crcAgentImage, SimulatedJobRunner } from '../platform/simulated-job-runner.js';
import { SimulatedKubeVirt } from '../platform/simulated-kubevirt.js';
import { SimulatedManagementNode } from '../platform/simulated-management-node.js';
import { ensurePlatformOperands } from '../platform/simulated-platform-operands.js';
import { SimulatedRouter } from '../platform/simulated-router.js';
import { SimulatedStorage } from '../platform/simulated-storage.js';

export { TEST_AGENT_IMAGE };

export interface CrcEnvironmentOptions {
  /**
   * A namespace whose claims the platform also serves, and the operator's namespace (where the
   * golden disks of CRCBundles live, the source of turnkey clones). Default: none, and the
   * operator namespace of testConfig.
   */
  operatorNamespace?: string;
  /** Whether guests run an API control plane each (default) or an API that is never ready. */
  guestApi?: SimulatedCrcGuestsOptions['api'];
  seed?: SimulatedCrcGuestsOptions['seed'];
}

/** The agent's log and exit, as the injected failure of a Job reports it. */
const INJECTED_JOB_FAILURE = {
  exitCode: 1,
  reason: 'Error',
  message: 'crc-agent failed: injected failure',
};

/** Whether an object is named in a failure-injection set: by its instance label or its own name. */
function named(set: ReadonlySet<string>, object: KubeObject): boolean {
  const instance = object.metadata?.labels?.['opdev.io/cluster-instance'];
  return (instance !== undefined && set.has(instance)) || set.has(object.metadata?.name ?? '');
}

type Part = { stop(): Promise<void> };

/**
 * The crc world of one test file: simulated storage, CDI, KubeVirt with one CRC guest per VMI,
 * the Job runner (the agent image runs the built crc-agent), the router, a management node and
 * the platform operands, plus the real operator. The platform serves the test's namespace (and
 * the operator namespace, if given); other test files share the control plane.
 *
 * What the operator creates is what the platform acts on (spec §3.1–3.4, §3.8): DataVolume
 * `<instance>-rootdisk` → claim of that name → `disk.img`; VirtualMachine `<instance>` → VMI
 * `<instance>` with IP 127.x.y.z and launcher pod labelled `vm.kubevirt.io/name=<instance>`;
 * Service `<instance>-crc-api` (selector on that label, targetPort 6443) and Route
 * `<instance>-crc-api` (passthrough) → the guest's API; crc-agent Job → the agent process with
 * `CRC_SSH_PORT` of the guest at `CRC_SSH_HOST` added by the platform.
 */
export class CrcEnvironment {
  private operator: Manager | undefined;
  /** Failure injection (instance or VM names): the VMI runs but never reports an IP. */
  readonly noIp = new Set<string>();
  /** Failure injection (instance or DataVolume names): the import or clone fails. */
  readonly failingDataVolumes = new Set<string>();
  /** Failure injection (instance or Job names): every pod of the Job exits 1 without running. */
  readonly failingJobs = new Set<string>();
  /** Failure injection (instance or Route names): the Route is never admitted. */
  readonly unadmittedRoutes = new Set<string>();
  /**
   * Extra agent environment by instance name, for failure tests only: the timing overrides of
   * ADR 0003 (CRC_AGENT_SSH_WAIT_TIMEOUT, …). The happy path runs with the production waits.
   */
  readonly agentEnv = new Map<string, Record<string, string>>();

  private readonly kubeConfig: KubeConfig;
  readonly namespaces: string[];
  private readonly storages = new Map<string, SimulatedStorage>();
  readonly guests: SimulatedCrcGuests;
  /** The key of the simulated CRC bundle: disks imported over HTTP accept it. */
  readonly bundleKey = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
  private readonly parts: Part[] = [];

  private constructor(
    kubeConfig: KubeConfig,
    namespace: string,
    private readonly options: CrcEnvironmentOptions,
  ) {
    this.kubeConfig = kubeConfig;
    this.namespaces = [namespace];
    this.guests = new SimulatedCrcGuests({
      api: options.guestApi ?? 'per-guest',
      seed: options.seed,
    });
  }

  router!: SimulatedRouter;
  runner!: SimulatedJobRunner;
  kubevirt!: SimulatedKubeVirt;

  static async start(
    kubeConfig: KubeConfig,
    api: ApiClient,
    namespace: string,
    options: CrcEnvironmentOptions = {},
  ): Promise<CrcEnvironment> {
    const served = [namespace, ...(options.operatorNamespace ? [options.operatorNamespace] : [])];
    const serves = (ns: string): boolean => served.includes(ns);
    const environment = new CrcEnvironment(kubeConfig, namespace, options);
    const { parts, storages, guests, bundleKey } = environment;
    try {
      for (const ns of served) {
        const storage = await SimulatedStorage.start({ kubeConfig, namespace: ns });
        storages.set(ns, storage);
        parts.unshift(storage);
      }
      const volumePath = (ns: string, claim: string): string | undefined =>
        storages.get(ns)?.volumePath(ns, claim);
      const node = await SimulatedManagementNode.start(api);
      parts.unshift(node);
      await ensurePlatformOperands(api);
      parts.unshift(guests);
      parts.unshift(
        await SimulatedCdi.start({
          kubeConfig,
          servesNamespace: serves,
          volumePath,
          importedDiskKeys: () => bundleKey.public,
          fails: (dv) => named(environment.failingDataVolumes, dv),
        }),
      );
      environment.kubevirt = await SimulatedKubeVirt.start({
        kubeConfig,
        servesNamespace: serves,
        guests,
        nodeName: node.name,
        volumePath,
        getsIp: (vmi) => !named(environment.noIp, vmi),
      });
      parts.unshift(environment.kubevirt);
      environment.runner = await SimulatedJobRunner.start({
        kubeConfig,
        namespace,
        storage: storages.get(namespace)!,
        images: crcAgentImage(TEST_AGENT_IMAGE),
        inject: (job) => (named(environment.failingJobs, job) ? INJECTED_JOB_FAILURE : undefined),
        env: (_job, _pod, env) => environment.platformEnv(env),
      });
      parts.unshift(environment.runner);
      const backends = await ServiceBackends.start(kubeConfig, [namespace]);
      parts.unshift(backends);
      environment.router = await SimulatedRouter.start({
        kubeConfig,
        servesNamespace: serves,
        backend: (route) => backends.resolve(route),
        admits: (route) => !named(environment.unadmittedRoutes, route),
      });
      parts.unshift(environment.router);
      return environment;
    } catch (error) {
      for (const part of parts) await part.stop().catch(() => undefined);
      throw error;
    }
  }

  /** The ingress domain Route hosts are made of. */
  get domain(): string {
    return this.router.domain;
  }

  /** The folder of a Bound claim in a namespace the platform serves. */
  volumePath(namespace: string, claim: string): string | undefined {
    return this.storages.get(namespace)?.volumePath(namespace, claim);
  }

  /**
   * Starts the operator; its pool, lease and instance controllers act in this environment's
   * namespace only. `access` lets it talk to the apiserver as another identity (its own
   * ServiceAccount), `logger` collects its log.
   */
  async startOperator(options: { access?: ClusterAccess; logger?: Logger } = {}): Promise<Manager> {
    const manager = new Manager({
      config: testConfig({
        workersPerController: 2,
        crcAgentImage: TEST_AGENT_IMAGE,
        ...(this.options.operatorNamespace
          ? { operatorNamespace: this.options.operatorNamespace }
          : {}),
      }),
      kubeConfig: options.access ?? this.kubeConfig,
      logger:
        options.logger ??
        pino({ level: process.env.OPERATOR_TEST_LOG_LEVEL ?? 'silent' }, process.stderr),
      watchBackoff: { baseMs: 50, maxMs: 1000, jitter: 0.2 },
      retryBackoff: { baseMs: 100, maxMs: 5000, jitter: 0.1 },
    });
    registerControllers(manager, {
      // CRCBundles are cluster-scoped: another test file's bundles are not this operator's.
      controllers: ['clusterpool', 'clusterlease', 'clusterinstance'],
      namespaces: this.namespaces,
      // Route hosts resolve to the router, as DNS would send them on a real cluster.
      crc: { probe: guestApiProbe(() => this.router.address) },
    });
    await manager.start();
    this.operator = manager;
    return manager;
  }

  /**
   * What a crc instance of the manual path needs besides its spec: the pull secret and the bundle
   * SSH key Secret (key `id_ecdsa`) with the key that disks imported over HTTP accept.
   */
  async createCrcPrerequisites(
    api: ApiClient,
    namespace: string,
    names: { pullSecret?: string; sshKeySecret?: string } = {},
  ): Promise<{ pullSecret: string; sshKeySecret: string; sshKeyDataKey: string }> {
    const pullSecret = names.pullSecret ?? 'pull-secret';
    const sshKeySecret = names.sshKeySecret ?? 'crc-bundle-ssh-key';
    await createPullSecret(api, namespace, pullSecret);
    await api.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: sshKeySecret, namespace },
      type: 'Opaque',
      data: { id_ecdsa: Buffer.from(this.bundleKey.private).toString('base64') },
    } as KubeObject);
    return { pullSecret, sshKeySecret, sshKeyDataKey: 'id_ecdsa' };
  }

  async stop(): Promise<void> {
    await this.operator?.stop();
    for (const part of this.parts) await part.stop();
  }

  /** The environment a node here adds to a pod: how to reach the guest the agent is sent to. */
  private platformEnv(env: Readonly<Record<string, string>>): Record<string, string> {
    const guest = env.CRC_SSH_HOST ? this.guests.guestAt(env.CRC_SSH_HOST) : undefined;
    return {
      ...(guest ? { CRC_SSH_PORT: String(guest.ssh.port) } : {}),
      ...this.agentEnv.get(env.INSTANCE_NAME ?? ''),
    };
  }
}
