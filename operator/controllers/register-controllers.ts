import { LABEL_MANAGED_BY, MANAGED_BY_OPERATOR } from '../api/labels.js';
import { SECRETS } from '../../client/api/resources.js';
import type { ControllerName, OperatorConfig } from '../config.js';
import { HANDOFF_MANAGED_BY } from './clusterinstance/crc/crc-agent-builders.js';
import type { Controller } from '../runtime/controller.js';
import type { ControllerRegistration, Manager } from '../runtime/manager.js';
import type { CrcTopologyOptions } from './clusterinstance/crc/crc-topology.js';
import type { HcpTopologyOptions } from './clusterinstance/hcp/hcp-topology.js';
import { PolicyKeeper } from './admission/policy-keeper.js';
import { PolicyStatusController } from './ciaccesspolicy/policy-status-controller.js';
import { startTokenExchange } from '../exchange/exchange-endpoint.js';
import { scopedTo, servesCachedNamespace } from './scope-filter.js';
import { ReclaimController } from './cirun/reclaim-controller.js';
import { instanceControllerRegistration } from './clusterinstance/instance-registration.js';
import { LeaseController } from './clusterlease/lease-controller.js';
import type { ConnectAddress } from './clusterinstance/core/guest-api-probe.js';
import { GuestHealthController } from './guesthealth/guest-health-controller.js';
import { PoolController } from './clusterpool/pool-controller.js';
import { registerPoolMetrics } from './clusterpool/pool-metrics.js';
import { leaseMetrics } from './clusterlease/lease-metrics.js';
import { bundleFailures } from './bundles/bundle-metrics.js';
import type { BundleControllerOptions } from './bundles/bundle-settings.js';
import { BuildController } from './bundlebuild/build-controller.js';
import { BundleController } from './crcbundle/bundle-controller.js';
import type { VersionStreamControllerOptions } from './versionstream/version-stream-controller.js';
import { VersionStreamController } from './versionstream/version-stream-controller.js';
import { streamResolutionErrors } from './versionstream/stream-metrics.js';

export interface RegisterOptions {
  /** Which controllers run; default: those of the configuration (--controllers). */
  controllers?: readonly ControllerName[];
  hcp?: HcpTopologyOptions;
  crc?: CrcTopologyOptions;
  bundles?: BundleControllerOptions;
  versionStreams?: VersionStreamControllerOptions;
  /** Where the guest health checks connect for a guest API host; DNS by default. */
  guestConnect?: ConnectAddress;
}

/**
 * The Secrets the operator caches: those it (or the crc-agent it runs) writes. Tenants' Secrets
 * (pull secrets, SSH keys, HyperShift's admin kubeconfig) are read live, when an instance needs
 * them, so that unrelated Secrets of the cluster cost the operator no memory.
 */
export const MANAGED_SECRETS = `${LABEL_MANAGED_BY} in (${MANAGED_BY_OPERATOR},${HANDOFF_MANAGED_BY})`;

/**
 * Adds the operator's controllers to the manager, in one place: each acts through the manager's
 * ports, with its settings from the configuration. Those of namespaced kinds serve the namespaces
 * of the operator's scope (--scope-labels), while their caches see every namespace (hcp control
 * planes live in namespaces of their own); those of cluster-scoped kinds read the scope themselves.
 */
export function registerControllers(
  manager: Manager,
  config: OperatorConfig,
  options: RegisterOptions = {},
): void {
  manager.restrictCache(SECRETS, MANAGED_SECRETS);
  const enabled = new Set(options.controllers ?? config.controllers);
  const served = { scope: config.scope, operatorNamespace: config.operatorNamespace };
  const add = (registration: ControllerRegistration): Controller =>
    manager.addController(scopedTo(registration, manager.ports, served));
  const { crc, timings } = config;
  const metricsRegistry = manager.metrics.registry;
  if (enabled.has('clusterpool')) {
    add(
      new PoolController(manager.ports, {
        timings: timings.pool,
        crc,
        scope: config.scope,
      }).registration(),
    );
    registerPoolMetrics(metricsRegistry, {
      cache: manager.ports.cache,
      synced: () => manager.synced,
      serves: (namespace) => servesCachedNamespace(manager.ports.cache, served, namespace),
    });
  }
  if (enabled.has('clusterlease'))
    add(
      new LeaseController(manager.ports, {
        timings: timings.lease,
        metrics: leaseMetrics(metricsRegistry),
      }).registration(),
    );
  // Asks GitHub about leases' runs only with a credential configured (--github-credentials-secret).
  if (enabled.has('cirun') && config.github) {
    // GitHub is asked off the workers; an answer queues the leases that wait for it.
    const queue: { controller?: Controller } = {};
    const reclaim = new ReclaimController(
      manager.ports,
      { github: config.github, operatorNamespace: config.operatorNamespace },
      manager.logger,
      (key) => queue.controller?.enqueue(key),
    );
    queue.controller = add(reclaim.registration());
  }
  if (enabled.has('clusterinstance')) {
    // Guest API checks run off the workers; a check's end queues its instance.
    const queue: { controller?: Controller } = {};
    queue.controller = add(
      instanceControllerRegistration(manager.ports, {
        settings: config,
        metricsRegistry,
        timings: timings.instance,
        hcp: options.hcp,
        crc: options.crc,
        requeue: (key) => queue.controller?.enqueue(key),
      }),
    );
  }
  // Guest checks wait on guests: off the workers, capped (guest-health-controller.ts).
  if (enabled.has('guesthealth')) {
    const queue: { controller?: Controller } = {};
    queue.controller = add(
      new GuestHealthController(manager.ports, {
        recheckMs: timings.instance.guestHealthRecheckMs,
        connectAddress: options.guestConnect,
        requeue: (key) => queue.controller?.enqueue(key),
      }).registration(),
    );
  }
  // CRCBundles have two controllers, one per source (ADR 0042): downloads and builds.
  if (enabled.has('crcbundle')) {
    const bundles = { ...options.bundles, failures: bundleFailures(metricsRegistry) };
    manager.addController(new BundleController(manager.ports, config, bundles).registration());
    manager.addController(new BuildController(manager.ports, config, bundles).registration());
  }
  // Cluster-scoped and one for the cluster: not limited to a scope.
  if (enabled.has('admissionpolicy'))
    manager.addController(new PolicyKeeper(manager.ports).registration());
  // Cluster-scoped and one for the cluster, like the admission policies.
  if (enabled.has('ciaccesspolicy'))
    manager.addController(new PolicyStatusController(manager.ports).registration());
  // The exchange issues only where the controllers run: on the leader, caches synced (ADR 0050).
  const exchange = config.tokenExchange;
  if (exchange)
    manager.addServer({
      start: () =>
        startTokenExchange(exchange, manager.ports, {
          ready: () => manager.synced,
          logger: manager.logger,
        }),
    });
  // Cluster-scoped like bundles: the streams that carry the scope's labels.
  if (enabled.has('versionstream'))
    manager.addController(
      new VersionStreamController(
        manager.ports,
        {
          ...config.versionStreams,
          crcBundleMirrorUrl: config.crcBundleMirrorUrl,
          scope: config.scope,
        },
        { ...options.versionStreams, errors: streamResolutionErrors(metricsRegistry) },
      ).registration(),
    );
}
