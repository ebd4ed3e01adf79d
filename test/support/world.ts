import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { LocalControlPlane } from '../../dev/control-plane/control-plane.js';
import { installProjectCrds } from '../../dev/control-plane/install-crds.js';
import type { SimulatedPlatformOptions } from '../../dev/platform/simulated-platform.js';
import { SimulatedPlatform } from '../../dev/platform/simulated-platform.js';
import { LABEL_NAMESPACE_ENABLED } from '../../operator/api/labels.js';
import type { ControllerRegistration, Manager } from '../../operator/runtime/manager.js';
import { attachSharedHostedGuest } from './shared-hosted-guest.js';
import { quietManager } from './test-manager.js';
import { TEST_ENV } from './test-env.js';
import type { TestNamespace } from './cluster.js';
import {
  adminKubeConfig,
  createNamespace,
  createTestNamespace,
  deleteTestNamespace,
  namespaceClients,
} from './cluster.js';
import type { TestOperatorOptions } from './test-operator.js';
import { startTestOperator } from './test-operator.js';

const ENABLED = { [LABEL_NAMESPACE_ENABLED]: 'true' };
/** The label that puts a world's namespaces and cluster-scoped objects in its operators' scope. */
export const WORLD_LABEL = 'test.guestcluster.opdev.io/world';

export interface WorldOptions {
  /** The file's namespace: this prefix and a random suffix. */
  namespace: string;
  /** Whether the namespace carries the label that lets the operator act in it. */
  enabled?: boolean;
  /**
   * A second namespace of the file's own that holds the operator's objects (golden disks of
   * CRCBundles, bundle-prep Jobs), served by the platform too: this prefix and a random suffix.
   */
  operatorNamespace?: string;
  /**
   * The control plane: the run's, shared with the other files (default), or one of the file's
   * own, for tests that stop or restart its apiserver.
   */
  controlPlane?: 'shared' | 'own';
  /**
   * The folder of the project's CRDs that a control plane of the file's own serves, if not
   * crds/: a release's (crds/released/<version>), for a test of an upgrade from it.
   */
  crds?: string;
  /** Wait for the namespaces to be gone after the file (benchmarks: the next one starts clean). */
  awaitNamespaceDeletion?: boolean;
  namespaceDeleteTimeoutMs?: number;
  /**
   * The simulated platform for the file's namespaces: the crc world (storage, CDI, KubeVirt with
   * one CRC guest per VMI, the Job runner), the hcp world (HyperShift and its guest API), or both.
   * None by default: the file plays the platform's part itself, or needs none.
   */
  platform?: Pick<SimulatedPlatformOptions, 'crc' | 'hcp' | 'hcpDelays' | 'nodes'>;
  /**
   * The operator, started before the file's tests: the pool and lease controllers without a
   * platform, every controller with one (see startTestOperator). More, or restarted ones, come
   * from `world.startOperator()`.
   */
  operator?: TestOperatorOptions | true;
}

/**
 * The world of one test file, built in layers before its tests and taken down after them in the
 * reverse order: the control plane (the run's, started by the global setup), the file's
 * namespaces, the simulated platform serving them, the operator, and what the tests create.
 * Fixtures (pools, leases, instances, prerequisites) are functions of `world.ns`.
 */
export class World {
  /** The file's namespace and admin clients of its control plane; named in beforeAll. */
  readonly ns: TestNamespace;
  /** The namespace standing for the operator's, when asked for; named in beforeAll. */
  readonly operatorNs: TestNamespace;
  private ownControlPlane: LocalControlPlane | undefined;
  private simulated: SimulatedPlatform | undefined;
  private readonly operators: Manager[] = [];
  private readonly added: TestNamespace[] = [];
  /**
   * The labels of this world (--scope-labels of its operators): its namespaces carry them, and
   * so must the CRCBundles and VersionStreams its tests make for its operators.
   */
  readonly scopeLabels: Readonly<Record<string, string>> = {
    [WORLD_LABEL]: randomBytes(4).toString('hex'),
  };

  constructor(private readonly options: WorldOptions) {
    // The same objects from the start, so that a file can keep them in constants; a file with
    // a control plane of its own gets its clients once that has started.
    const kubeConfig = options.controlPlane === 'own' ? undefined : adminKubeConfig();
    this.ns = kubeConfig ? namespaceClients(kubeConfig) : ({ name: '' } as TestNamespace);
    this.operatorNs = kubeConfig ? namespaceClients(kubeConfig) : ({ name: '' } as TestNamespace);
  }

  /** The simulated platform; only for a world that has one. */
  get platform(): SimulatedPlatform {
    if (!this.simulated) throw new Error('this world has no simulated platform');
    return this.simulated;
  }

  /** The operator started with the world; only for a world that starts one. */
  get operator(): Manager {
    const first = this.operators[0];
    if (!first) throw new Error('this world started no operator');
    return first;
  }

  /** The file's own control plane; only for a world with `controlPlane: 'own'`. */
  get controlPlane(): LocalControlPlane {
    if (!this.ownControlPlane) throw new Error("this world's control plane is the run's");
    return this.ownControlPlane;
  }

  /**
   * Starts the simulated platform for the world's namespaces, for a file that has none from the
   * start (it tests what comes before, first); operators started from now on act with it.
   */
  async startPlatform(platform: NonNullable<WorldOptions['platform']>): Promise<SimulatedPlatform> {
    if (this.simulated) throw new Error('this world has a simulated platform already');
    // The run's hosted guest API, shared by the files' platforms (one control plane, not five).
    const broker = process.env[TEST_ENV.hostedGuest];
    this.simulated = await SimulatedPlatform.startPlatform(this.ns.kubeConfig, this.ns.api, {
      namespaces: [this.ns.name, ...this.added.map((ns) => ns.name)],
      operatorNamespace: this.operatorNs.name || undefined,
      ...(broker ? { hostedGuest: () => attachSharedHostedGuest(broker) } : {}),
      ...platform,
    });
    return this.simulated;
  }

  /**
   * Another namespace of the file's, with exactly this name (a test of names that might collide),
   * served by the platform if there is one, and deleted with the world.
   */
  async addNamespace(name: string, options: { enabled?: boolean } = {}): Promise<TestNamespace> {
    const added = namespaceClients(this.ns.kubeConfig);
    await createNamespace(added, name, this.namespaceLabels(options.enabled));
    this.added.push(added);
    this.simulated?.namespaces.push(name);
    return added;
  }

  /**
   * Starts another operator on the world's namespaces (or platform), stopped with the world if
   * the test does not stop it first.
   */
  async startOperator(options: TestOperatorOptions = {}): Promise<Manager> {
    const scope = { ...this.scopeLabels };
    const place = this.simulated
      ? { platform: this.simulated, scope }
      : { namespace: options.namespace ?? this.ns.name, scope };
    const manager = await startTestOperator(this.ns.kubeConfig, place, options);
    this.operators.push(manager);
    return manager;
  }

  /**
   * A manager running one controller of the test's, for tests of the runtime (see quietManager):
   * not started, and stopped with the world if the test does not stop it first.
   */
  manager(
    registration: (manager: Manager) => ControllerRegistration,
    options: Parameters<typeof quietManager>[2] = {},
  ): Manager {
    const manager = quietManager(this.ns.kubeConfig, registration, options);
    this.operators.push(manager);
    return manager;
  }

  /** Stops every operator the world started (those already stopped stay so). */
  async stopOperators(): Promise<void> {
    await Promise.all(this.operators.splice(0).map((m) => m.stop()));
  }

  async build(): Promise<void> {
    const { options } = this;
    if (options.controlPlane === 'own') {
      // A platform needs its CRDs and ours, which the run's control plane has from its set-up.
      this.ownControlPlane = await LocalControlPlane.start(
        options.platform
          ? {
              beforeControllers: async (kubeconfigPath) =>
                void (await installProjectCrds(kubeconfigPath, undefined, options.crds)),
            }
          : {},
      );
      const kubeConfig = adminKubeConfig(this.ownControlPlane.kubeconfigPath);
      Object.assign(this.ns, namespaceClients(kubeConfig));
      Object.assign(this.operatorNs, namespaceClients(kubeConfig));
    }
    await createTestNamespace(this.ns, options.namespace, this.namespaceLabels(options.enabled));
    if (options.operatorNamespace)
      await createTestNamespace(this.operatorNs, options.operatorNamespace, this.scopeLabels);
    if (options.platform) await this.startPlatform(options.platform);
    if (options.operator)
      await this.startOperator(options.operator === true ? {} : options.operator);
  }

  /** The labels of a namespace of the world's: its own, and the opt-in when `enabled`. */
  namespaceLabels(enabled = false): Record<string, string> {
    return { ...this.scopeLabels, ...(enabled ? ENABLED : {}) };
  }

  /**
   * The file's namespaces go first, while the operator and the platform still run: objects with
   * finalizers need their controllers to let them go. Then the operators, the platform and an
   * own control plane stop.
   */
  async tearDown(): Promise<void> {
    const { options } = this;
    const deletion = {
      await: options.awaitNamespaceDeletion,
      timeoutMs: options.namespaceDeleteTimeoutMs,
    };
    try {
      // A control plane of the file's own goes as a whole.
      if (!this.ownControlPlane)
        await Promise.all(
          [this.ns, this.operatorNs, ...this.added].map((ns) => deleteTestNamespace(ns, deletion)),
        );
    } finally {
      await this.stopOperators();
      await this.simulated?.stop();
      await this.ownControlPlane?.stop();
    }
  }
}

/** Builds the calling test file's world before its tests and takes it down after them. */
export function useWorld(options: WorldOptions): World {
  const world = new World(options);
  beforeAll(() => world.build());
  afterAll(() => world.tearDown());
  return world;
}
