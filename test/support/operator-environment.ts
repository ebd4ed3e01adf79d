import { pino } from 'pino';
import { guestApiProbe } from '../../operator/controllers/clusterinstance/guest-api-probe.js';
import type { OperatorConfig } from '../../operator/config.js';
import { managerOptions } from '../../operator/config.js';
import type { BundleControllerOptions } from '../../operator/controllers/crcbundle/bundle-controller.js';
import { registerControllers } from '../../operator/controllers/register-controllers.js';
import type { ClusterAccess } from '../../operator/kube/api-client.js';
import type { Logger } from '../../operator/runtime/logger.js';
import { Manager } from '../../operator/runtime/manager.js';
import { testConfig } from '../../dev/platform/manager-config.js';
import { SimulatedPlatform, TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';
import { TEST_INSTANCE_TIMINGS } from './test-timings.js';

/** A simulated platform with the real operator running in the test's process. */
export class OperatorEnvironment extends SimulatedPlatform {
  private operator: Manager | undefined;

  /**
   * Starts the operator; its pool, lease and instance controllers act in the platform's
   * namespaces only (other test files share the control plane). `access` lets it talk to the
   * apiserver as another identity (its own ServiceAccount), `logger` collects its log. The
   * CRCBundle controller runs only with `bundles`, which must limit it to the test's own bundles
   * (they are cluster-scoped); `config` adds to the test configuration (the bundle mirror).
   */
  async startOperator(
    options: {
      access?: ClusterAccess;
      logger?: Logger;
      bundles?: BundleControllerOptions;
      config?: Partial<OperatorConfig>;
    } = {},
  ): Promise<Manager> {
    // Route hosts resolve to the router, as DNS would send them on a real cluster; any other
    // name is connected to as it is.
    const probe = guestApiProbe((host, port) =>
      host.endsWith(`.${this.domain}`) ? this.router.address : { host, port },
    );
    const defaults = testConfig();
    const config = testConfig({
      workersPerController: 2,
      crcAgentImage: TEST_AGENT_IMAGE,
      timings: {
        ...defaults.timings,
        instance: { ...defaults.timings.instance, ...TEST_INSTANCE_TIMINGS },
      },
      ...(this.options.operatorNamespace
        ? { operatorNamespace: this.options.operatorNamespace }
        : {}),
      ...options.config,
    });
    const manager = new Manager({
      ...managerOptions(config),
      kubeConfig: options.access ?? this.kubeConfig,
      logger:
        options.logger ??
        pino({ level: process.env.OPERATOR_TEST_LOG_LEVEL ?? 'silent' }, process.stderr),
      watchBackoff: { baseMs: 50, maxMs: 1000, jitter: 0.2 },
      retryBackoff: { baseMs: 100, maxMs: 5000, jitter: 0.1 },
    });
    registerControllers(manager, config, {
      // CRCBundles are cluster-scoped: another test file's bundles are not this operator's.
      controllers: [
        'clusterpool',
        'clusterlease',
        'clusterinstance',
        ...(options.bundles ? ['crcbundle' as const] : []),
      ],
      bundles: options.bundles,
      namespaces: this.namespaces,
      crc: { probe },
      hcp: { probe },
    });
    await manager.start();
    this.operator = manager;
    return manager;
  }

  override async stop(): Promise<void> {
    await this.operator?.stop();
    await super.stop();
  }
}
