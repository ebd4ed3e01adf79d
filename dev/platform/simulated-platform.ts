import type { AdminAccess } from '../support/admin-access.js';
import ssh2 from 'ssh2';
import { AGENT_ENV } from '../../contracts/agent-job.js';
import { BUILD_ENV, LABEL_BUILD_ROLE, LABEL_BUILD_STEP } from '../../contracts/bundle-build.js';
import { LABEL_CRC_BUNDLE } from '../../contracts/labels.js';
import type { ContainerResult } from './jobs/local-pod.js';
import type { Job } from '../../operator/kube/workloads.js';
import { LABEL_CLUSTER_INSTANCE } from '../../operator/api/labels.js';
import type { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import { TEST_AGENT_IMAGE } from './bundles/bundle-fixtures.js';
import { ServiceBackends } from './router/service-backends.js';
import { SimulatedCdi } from './cdi/simulated-cdi.js';
import { SimulatedCrcGuests } from './kubevirt/simulated-crc-guests.js';
import type { SimulatedCrcGuestsOptions } from './kubevirt/simulated-crc-guests.js';
import { SimulatedHostedClusters } from './hypershift/simulated-hosted-clusters.js';
import type { HostedClusterDelays } from './hypershift/hosted-cluster-delays.js';
import { SimulatedHostedGuest } from './hypershift/simulated-hosted-guest.js';
import { crcAgentImage, SimulatedJobRunner } from './jobs/simulated-job-runner.js';
import type { GuestHost } from './kubevirt/vmi-guests.js';
import { SimulatedKubeVirt } from './kubevirt/simulated-kubevirt.js';
import { RoutedGuests } from './kubevirt/routed-guests.js';
import { randomBytes } from 'node:crypto';
import type { SimulatedNodeSpec } from './management/simulated-management-node.js';
import { DEFAULT_NODES, SimulatedManagementNode } from './management/simulated-management-node.js';
import { SimulatedScheduler } from './scheduling/simulated-scheduler.js';
import { SimulatedNodePools } from './hypershift/simulated-node-pools.js';
import { ensurePlatformOperands } from './management/simulated-platform-operands.js';
import { SimulatedRouter } from './router/simulated-router.js';
import { SimulatedStorage } from './storage/simulated-storage.js';
import { playReleaseTool } from './build/simulated-build-tools.js';
import { SimulatedBuildGuests } from './build/simulated-build-guests.js';
import type { VmiObject } from './host/platform-kinds.js';
import { SECRETS } from '../../client/api/resources.js';
import type { Secret } from '../../operator/kube/workloads.js';

export { TEST_AGENT_IMAGE };

export interface SimulatedPlatformOptions {
  /** The namespaces whose objects the platform serves (hcp control planes: `<namespace>-…` too). */
  namespaces: string[];
  /**
   * The operator's namespace, served too: golden disks of CRCBundles (the source of turnkey
   * clones) and bundle-prep Jobs live there.
   */
  operatorNamespace?: string;
  /** KubeVirt, CDI, storage, the Job runner and one CRC guest per VMI. */
  crc?: {
    /** Whether guests run an API control plane each (default) or an API that is never ready. */
    guestApi?: SimulatedCrcGuestsOptions['api'];
    seed?: SimulatedCrcGuestsOptions['seed'];
    /** The guests of bundle-build VMIs (label guestcluster.opdev.io/bundle-build-role). */
    buildGuests?: (power: GuestPower) => BuildGuestHost;
    /**
     * Build Jobs of the steps whose tools cannot run here get their results played
     * (playReleaseTool): what the local environment gives every build. A Job's played result
     * (`jobResults`) still wins.
     */
    releaseToolStandIns?: boolean;
  };
  /** HyperShift: HostedClusters, NodePools and one hosted guest API behind them. */
  hcp?: boolean;
  /**
   * How long HyperShift takes to make a HostedCluster Available and to tear one down (a
   * benchmark replaying real durations, docs/supply-benchmark.md#the-replay); none by default.
   */
  hcpDelays?: HostedClusterDelays;
  /**
   * The hosted guest API's front door, when the guest API is shared beyond this platform (by a
   * test run's files); without it the platform boots a guest API of its own.
   */
  hostedGuest?: () => Promise<SimulatedHostedGuest>;
  /** Where problems of the simulation go besides the parts' `problems` (a log). */
  log?: (line: string) => void;
  /**
   * The management cluster's nodes, which the platform's scheduler places every launcher, Job
   * and worker pod on (DEFAULT_NODES when unset: one node that fits what the tests run).
   */
  nodes?: readonly SimulatedNodeSpec[];
}

/** How a guest powers its VMI off (`systemctl poweroff` inside). */
export interface GuestPower {
  powerOff(vmiUid: string): void;
}

/** A host of build guests: the SSH port each serves at its VMI address, and a stop. */
export interface BuildGuestHost extends GuestHost {
  sshPortAt(address: string): number | undefined;
  stop(): Promise<void>;
}

/** The agent's log and exit, as the injected failure of a Job reports it. */
const INJECTED_JOB_FAILURE = {
  exitCode: 1,
  reason: 'Error',
  message: 'crc-agent failed: injected failure',
};

/**
 * The names an object goes by in a failure-injection set: its instance label, its own name, and
 * for an object of a bundle build `<bundle>/<role or step>` (its name holds a random attempt).
 */
function namesOf(object: KubeObject): string[] {
  const labels = object.metadata?.labels ?? {};
  const bundle = labels[LABEL_CRC_BUNDLE];
  const part = labels[LABEL_BUILD_STEP] ?? labels[LABEL_BUILD_ROLE];
  return [
    labels[LABEL_CLUSTER_INSTANCE] ?? '',
    object.metadata?.name ?? '',
    bundle && part ? `${bundle}/${part}` : '',
  ].filter(Boolean);
}

/** Whether an object is named in a failure-injection set (see namesOf). */
function named(
  set: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  object: KubeObject,
): boolean {
  return namesOf(object).some((name) => set.has(name));
}

type Part = { stop(): Promise<void> };

/**
 * The platforms that cannot run here, simulated through the real API for a set of namespaces:
 * a management node and the platform operands, the router (also an HTTPS proxy), and on demand
 * the crc world (storage, CDI, KubeVirt with one CRC guest per VMI, the Job runner whose agent
 * image runs the built crc-agent) and the hcp world (HostedClusters, NodePools, a hosted guest
 * API). Other users of the same control plane keep to other namespaces.
 *
 * What the operator creates for crc is what the platform acts on
 * (docs/reference/generated-objects.md): DataVolume → claim of that name → `disk.img`;
 * VirtualMachine → VMI with IP 127.x.y.z and a launcher pod labelled `vm.kubevirt.io/name`; Service
 * (selector on that label, targetPort 6443) and passthrough Route → the guest's API; crc-agent Job
 * → the agent process, with the
 * `CRC_SSH_PORT` of the guest at `CRC_SSH_HOST` added by the platform.
 */
export class SimulatedPlatform {
  /** Failure injection (instance or VM names): the VMI runs but never reports an IP. */
  readonly noIp = new Set<string>();
  /** Failure injection (instance or DataVolume names): the import or clone fails. */
  readonly failingDataVolumes = new Set<string>();
  /** Failure injection (instance or DataVolume names): the import or clone never progresses. */
  readonly stalledDataVolumes = new Set<string>();
  /** Failure injection (instance or Job names): every pod of the Job exits 1 without running. */
  readonly failingJobs = new Set<string>();
  /**
   * A Job's pods end with this result instead of running (names as for failingJobs): a test that
   * plays the part of a step whose tools cannot run here (a build's `oc`, `coreos-installer`).
   */
  readonly jobResults = new Map<
    string,
    ContainerResult | ((job: Job) => Promise<ContainerResult>)
  >();
  /** Failure injection (instance or Route names): the Route is never admitted. */
  readonly unadmittedRoutes = new Set<string>();
  /**
   * Failure injection (instance names): their guest API stops answering at its Route, as when the
   * guest's control plane or its network goes away after it was Ready.
   */
  readonly silentGuests = new Set<string>();
  /**
   * Failure injection (instance names): their guest API takes connections at its Route and never
   * answers, as a guest that hangs (`router.held` has the connections).
   */
  readonly hungGuests = new Set<string>();
  /** Failure injection (instance names): their HostedClusters never become Available. */
  readonly neverAvailable = new Set<string>();
  /** Failure injection (instance names): their NodePools get no workers. */
  readonly noWorkers = new Set<string>();
  /**
   * Extra agent environment by instance (or building bundle) name, for failure tests only: the timing overrides of
   * ADR 0003 (CRC_AGENT_SSH_WAIT_TIMEOUT, …). The happy path runs with the production waits.
   */
  readonly agentEnv = new Map<string, Record<string, string>>();
  /** The key of the simulated CRC bundle: disks imported over HTTP accept it. */
  readonly bundleKey = ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });

  router!: SimulatedRouter;
  /** The Job runner of each served namespace (crc only). */
  readonly runners = new Map<string, SimulatedJobRunner>();
  private crcGuests: SimulatedCrcGuests | undefined;
  private buildGuestHost: BuildGuestHost | undefined;
  private crcKubeVirt: SimulatedKubeVirt | undefined;
  private hcpGuest: SimulatedHostedGuest | undefined;

  private readonly storages = new Map<string, SimulatedStorage>();
  private readonly parts: Part[] = [];
  /** The platform's own nodes: the only ones its scheduler considers (nodes are cluster-wide). */
  private readonly nodeSet = new Set<string>();
  private readonly nodePrefix = `sim-node-${randomBytes(3).toString('hex')}`;
  private readonly nodeParts: SimulatedManagementNode[] = [];
  private api: ApiClient | undefined;
  private scheduler: SimulatedScheduler | undefined;

  protected constructor(
    protected readonly kubeConfig: AdminAccess,
    protected readonly options: SimulatedPlatformOptions,
  ) {}

  get namespaces(): string[] {
    return this.options.namespaces;
  }

  /** The operator's namespace, when the platform serves it too. */
  get operatorNamespace(): string | undefined {
    return this.options.operatorNamespace;
  }

  /** The names of the platform's nodes. */
  get nodeNames(): string[] {
    return [...this.nodeSet];
  }

  /**
   * Registers another node (`<prefix>-<suffix>`) as a kubelet would; pods that fit nowhere are
   * tried on it. It goes with the platform. Returns its name.
   */
  async addNode(spec: SimulatedNodeSpec): Promise<string> {
    const api = required(this.api, 'crc');
    const name = spec.suffix ? `${this.nodePrefix}-${spec.suffix}` : this.nodePrefix;
    if (this.nodeSet.has(name)) throw new Error(`the platform has a node ${name} already`);
    // Known before it is created, so that its first event already retries the waiting pods.
    this.nodeSet.add(name);
    try {
      this.nodeParts.push(await SimulatedManagementNode.start(api, name, spec));
    } catch (error) {
      this.nodeSet.delete(name);
      throw error;
    }
    return name;
  }

  /** The ingress domain Route hosts are made of. */
  get domain(): string {
    return this.router.domain;
  }

  /** The Job runner of the first namespace (the crc-agent Jobs of its instances). */
  get runner(): SimulatedJobRunner {
    return required(this.runners.get(this.options.namespaces[0]!), 'crc');
  }

  /** The CRC guests, one per VMI. */
  get guests(): SimulatedCrcGuests {
    return required(this.crcGuests, 'crc');
  }

  get kubevirt(): SimulatedKubeVirt {
    return required(this.crcKubeVirt, 'crc');
  }

  /** The guest API behind every hosted cluster. */
  get hostedGuest(): SimulatedHostedGuest {
    return required(this.hcpGuest, 'hcp');
  }

  /** The folder of a Bound claim in a namespace the platform serves. */
  volumePath(namespace: string, claim: string): string | undefined {
    return this.storages.get(namespace)?.volumePath(namespace, claim);
  }

  /** The folder of a claim once the storage has seen it Bound (as a kubelet waits to mount it). */
  volumeWhenBound(namespace: string, claim: string, timeoutMs = 60_000): Promise<string> {
    const storage = required(this.storages.get(namespace), 'crc');
    return storage.whenBound(namespace, claim, AbortSignal.timeout(timeoutMs));
  }

  protected static async startParts(platform: SimulatedPlatform, api: ApiClient): Promise<void> {
    try {
      await platform.startParts(api);
    } catch (error) {
      await platform.stop().catch(() => undefined);
      throw error;
    }
  }

  static async startPlatform(
    kubeConfig: AdminAccess,
    api: ApiClient,
    options: SimulatedPlatformOptions,
  ): Promise<SimulatedPlatform> {
    const platform = new SimulatedPlatform(kubeConfig, options);
    await SimulatedPlatform.startParts(platform, api);
    return platform;
  }

  private async startParts(api: ApiClient): Promise<void> {
    const { kubeConfig, options, parts } = this;
    const tenants = options.namespaces;
    const served = [...tenants, ...(options.operatorNamespace ? [options.operatorNamespace] : [])];
    const serves = (ns: string): boolean =>
      served.includes(ns) || (!!options.hcp && tenants.some((t) => ns.startsWith(`${t}-`)));
    // The hosted guest is a control plane of its own, by far the slowest part: it boots while
    // the others start.
    const guestBoot = options.hcp ? this.bootHostedGuest() : undefined;
    try {
      this.api = api;
      // The nodes go last, after every part that places pods on them.
      parts.unshift({ stop: () => this.stopNodes() });
      for (const spec of options.nodes ?? DEFAULT_NODES) await this.addNode(spec);
      this.scheduler = await SimulatedScheduler.start({
        kubeConfig,
        servesNamespace: serves,
        nodes: this.nodeSet,
      });
      parts.unshift(this.scheduler);
      await ensurePlatformOperands(api);
      if (options.crc) await this.startCrc(served, serves);
      // The operator namespace too: a bundle build validates its disk there, behind a Route.
      const backends = options.crc ? await ServiceBackends.start(kubeConfig, served) : undefined;
      if (backends) parts.unshift(backends);
      this.router = await SimulatedRouter.start({
        kubeConfig,
        servesNamespace: serves,
        backend: (route) => {
          if (named(this.silentGuests, route)) return undefined;
          if (named(this.hungGuests, route)) return 'hold';
          return this.hcpGuest && route.spec?.to?.name === 'kube-apiserver'
            ? this.hcpGuest.address
            : backends?.resolve(route);
        },
        admits: (route) => !named(this.unadmittedRoutes, route),
      });
      parts.unshift(this.router);
    } catch (error) {
      // Once booted it is one of the parts, which the caller stops.
      await guestBoot?.catch(() => undefined);
      throw error;
    }
    if (guestBoot) await this.startHcp(serves, await guestBoot);
  }

  private async startCrc(served: string[], serves: (ns: string) => boolean): Promise<void> {
    const { kubeConfig, parts, storages, bundleKey } = this;
    for (const ns of served) {
      const storage = await SimulatedStorage.start({ kubeConfig, namespace: ns });
      storages.set(ns, storage);
      parts.unshift(storage);
    }
    const volumePath = (ns: string, claim: string): string | undefined =>
      this.volumePath(ns, claim);
    const guests = new SimulatedCrcGuests({
      api: this.options.crc?.guestApi ?? 'per-guest',
      seed: this.options.crc?.seed,
    });
    this.crcGuests = guests;
    parts.unshift(guests);
    const power: GuestPower = { powerOff: (uid) => this.crcKubeVirt?.powerOff(uid) };
    const buildGuests = this.options.crc?.buildGuests?.(power);
    this.buildGuestHost = buildGuests;
    if (buildGuests) parts.unshift(buildGuests);
    parts.unshift(
      await SimulatedCdi.start({
        kubeConfig,
        servesNamespace: serves,
        volumePath,
        importedDiskKeys: () => bundleKey.public,
        fails: (dv) => named(this.failingDataVolumes, dv),
        stalls: (dv) => named(this.stalledDataVolumes, dv),
      }),
    );
    this.crcKubeVirt = await SimulatedKubeVirt.start({
      kubeConfig,
      servesNamespace: serves,
      guests: new RoutedGuests(guests, buildGuests),
      volumePath,
      getsIp: (vmi) => !named(this.noIp, vmi),
    });
    parts.unshift(this.crcKubeVirt);
    for (const ns of served) {
      const runner = await SimulatedJobRunner.start({
        kubeConfig,
        namespace: ns,
        storage: storages.get(ns)!,
        images: crcAgentImage(TEST_AGENT_IMAGE),
        inject: (job) => {
          if (named(this.failingJobs, job)) return INJECTED_JOB_FAILURE;
          const played = namesOf(job)
            .map((name) => this.jobResults.get(name))
            .find((result) => result !== undefined);
          if (played) return typeof played === 'function' ? played(job) : played;
          if (this.options.crc?.releaseToolStandIns)
            return playReleaseTool(job, (claim) => this.volumePath(ns, claim));
          return undefined;
        },
        env: (_job, _pod, env) => this.platformEnv(env),
        nodes: this.nodeSet,
        onProblem: (problem) => this.options.log?.(`Simulated kubelet: ${problem}`),
      });
      this.runners.set(ns, runner);
      parts.unshift(runner);
    }
  }

  private async bootHostedGuest(): Promise<SimulatedHostedGuest> {
    const guest = await (this.options.hostedGuest?.() ?? SimulatedHostedGuest.start());
    this.hcpGuest = guest;
    this.parts.unshift(guest);
    return guest;
  }

  private async startHcp(
    serves: (ns: string) => boolean,
    guest: SimulatedHostedGuest,
  ): Promise<void> {
    const { kubeConfig, parts } = this;
    const instanceOf = (object: KubeObject): string =>
      object.metadata?.labels?.[LABEL_CLUSTER_INSTANCE] ?? '';
    parts.unshift(
      await SimulatedHostedClusters.start({
        kubeConfig,
        guest,
        servesNamespace: serves,
        becomesAvailable: (hc) => !this.neverAvailable.has(instanceOf(hc)),
        delays: this.options.hcpDelays,
      }),
    );
    parts.unshift(
      await SimulatedNodePools.start({
        kubeConfig,
        servesNamespace: serves,
        readyReplicas: (np) => (this.noWorkers.has(instanceOf(np)) ? 0 : (np.spec?.replicas ?? 0)),
      }),
    );
  }

  async stop(): Promise<void> {
    for (const part of this.parts) await part.stop();
    this.parts.length = 0;
  }

  private async stopNodes(): Promise<void> {
    for (const node of this.nodeParts.splice(0)) await node.stop();
    this.nodeSet.clear();
  }

  /** The environment a node here adds to a pod: how to reach the guest the agent is sent to. */
  private platformEnv(env: Readonly<Record<string, string>>): Record<string, string> {
    const host = env[AGENT_ENV.sshHost];
    const guest = host ? this.crcGuests?.guestAt(host) : undefined;
    const buildHost = env[BUILD_ENV.sshHost];
    const buildPort = buildHost ? this.buildGuestHost?.sshPortAt(buildHost) : undefined;
    return {
      ...(guest ? { [AGENT_ENV.sshPort]: String(guest.ssh.port) } : {}),
      ...(buildPort ? { [BUILD_ENV.sshPort]: String(buildPort) } : {}),
      ...this.agentEnv.get(env[AGENT_ENV.instanceName] ?? env[BUILD_ENV.bundleName] ?? ''),
    };
  }
}

/**
 * Bundle builds as the local environment simulates them: the build VMs boot simulated build
 * guests (the installer VM with the cloud-init its Secret holds, read through the API as
 * virt-launcher would), and the steps whose tools cannot run here are played
 * (releaseToolStandIns). The other steps run the agent's own code against those guests.
 */
export function simulatedBuilds(
  api: ApiClient,
): Required<
  Pick<NonNullable<SimulatedPlatformOptions['crc']>, 'buildGuests' | 'releaseToolStandIns'>
> {
  const userData = async (vmi: VmiObject): Promise<string | undefined> => {
    const volume = (vmi.spec?.volumes ?? []).find((v) => 'cloudInitNoCloud' in v) as
      { cloudInitNoCloud?: { secretRef?: { name: string } } } | undefined;
    const name = volume?.cloudInitNoCloud?.secretRef?.name;
    if (!name) return undefined;
    const secret = await api.get<Secret>(SECRETS, name, vmi.metadata!.namespace);
    const data = secret.data?.userdata ?? secret.data?.userData;
    return data ? Buffer.from(data, 'base64').toString() : undefined;
  };
  return {
    buildGuests: (power) =>
      new SimulatedBuildGuests({
        onPoweroff: (vmi) => power.powerOff(vmi.metadata!.uid!),
        userData,
      }),
    releaseToolStandIns: true,
  };
}

function required<T>(part: T | undefined, world: 'crc' | 'hcp'): T {
  if (!part) throw new Error(`this simulated platform was started without ${world}`);
  return part;
}
