import { pino } from 'pino';
import type { ControllerName, OperatorConfig } from '../../operator/config.js';
import { managerOptions } from '../../operator/config.js';
import { guestApiProbe } from '../../operator/controllers/clusterinstance/core/guest-api-probe.js';
import { registerControllers } from '../../operator/controllers/register-controllers.js';
import type { ClusterAccess } from '../../client/kube/api-client.js';
import type { Clock } from '../../operator/runtime/clock.js';
import type { Logger } from '../../operator/runtime/logger.js';
import { Manager } from '../../operator/runtime/manager.js';
import { testConfig } from './test-config.js';
import type { SimulatedPlatform } from '../../dev/platform/simulated-platform.js';
import { TEST_AGENT_IMAGE } from '../../dev/platform/simulated-platform.js';
import { TEST_INSTANCE_TIMINGS } from './test-timings.js';

export interface TestOperatorOptions {
  /** Without a platform: the namespace to act in, if not the world's (one the test made). */
  namespace?: string;
  /**
   * The controllers to run, if not the usual ones: the pool and lease controllers, with a platform
   * the instance controller, with `bundles` the CRCBundle controller.
   */
  controllers?: readonly ControllerName[];
  /**
   * Who the operator talks to the apiserver as (its own ServiceAccount, a proxy that breaks
   * connections); the world's admin by default.
   */
  access?: ClusterAccess;
  clock?: Clock;
  /** Added to the test configuration (workers, waits, the bundle mirror, …). */
  config?: Partial<OperatorConfig>;
  /** Collects the operator's log; silent unless OPERATOR_TEST_LOG_LEVEL says otherwise. */
  logger?: Logger;
  /** Runs the CRCBundle controller too, for the bundles that carry the scope's labels. */
  bundles?: true;
  /**
   * The labels the operator serves (--scope-labels), if not the world's: its namespaces carry
   * those, and so must the cluster-scoped objects (CRCBundles, VersionStreams) meant for it.
   */
  scope?: Record<string, string>;
}

/**
 * Where the operator acts: the namespace of a file without a platform, or the platform's; and
 * the labels of the world, which its namespaces carry.
 */
export type OperatorPlace = (
  | { namespace: string; platform?: undefined }
  | { namespace?: undefined; platform: SimulatedPlatform }
) & { scope: Record<string, string> };

/**
 * The real operator in the test's process, serving the world's labels (--scope-labels): other
 * files' operators share the control plane. Without a simulated platform it runs the pool and
 * lease controllers for one namespace (its caches see that namespace only), and the test plays
 * the instance controller's part (settleInstance, fillPool). With one it runs the instance
 * controller too, for the platform's namespaces (its caches see them all: hcp control planes
 * live in namespaces of their own), reaching guest APIs through the platform's router.
 */
export async function startTestOperator(
  kubeConfig: ClusterAccess,
  place: OperatorPlace,
  options: TestOperatorOptions = {},
): Promise<Manager> {
  const { platform } = place;
  const defaults = testConfig();
  const config = testConfig({
    ...(platform
      ? {
          crcAgentImage: TEST_AGENT_IMAGE,
          timings: {
            ...defaults.timings,
            instance: { ...defaults.timings.instance, ...TEST_INSTANCE_TIMINGS },
          },
          ...(platform.operatorNamespace ? { operatorNamespace: platform.operatorNamespace } : {}),
        }
      : { watchNamespace: place.namespace }),
    scope: { labels: options.scope ?? place.scope },
    ...options.config,
  });
  const manager = new Manager({
    ...managerOptions(config),
    kubeConfig: options.access ?? kubeConfig,
    clock: options.clock,
    logger:
      options.logger ??
      pino({ level: process.env.OPERATOR_TEST_LOG_LEVEL ?? 'silent' }, process.stderr),
    watchBackoff: { baseMs: 50, maxMs: 1000, jitter: 0.2 },
    retryBackoff: { baseMs: 100, maxMs: 5000, jitter: 0.1 },
  });
  const controllers = options.controllers ?? [
    'clusterpool',
    'clusterlease',
    ...(platform ? ['clusterinstance' as const, 'guesthealth' as const] : []),
    ...(options.bundles ? ['crcbundle' as const] : []),
  ];
  if (platform) {
    // Route hosts resolve to the router, as DNS would send them on a real cluster; any other
    // name is connected to as it is.
    const guestConnect = (host: string, port: number): { host: string; port: number } =>
      host.endsWith(`.${platform.domain}`) ? platform.router.address : { host, port };
    const probe = guestApiProbe(guestConnect);
    registerControllers(manager, config, {
      controllers,
      crc: { probe },
      hcp: { probe },
      guestConnect,
    });
  } else {
    registerControllers(manager, config, { controllers });
  }
  await manager.start();
  return manager;
}
