import type { OperatorFlags } from '../config.js';
import { loadOperatorConfig, managerOptions } from '../config.js';
import { registerControllers } from '../controllers/register-controllers.js';
import { defaultClusterAccess } from '../../client/kube/cluster-access.js';
import { createLogger } from '../runtime/logger.js';
import { Manager } from '../runtime/manager.js';

/**
 * `guestcluster operator`: validates the configuration (nothing starts when it is invalid), then
 * runs the manager against the current kubeconfig context until SIGTERM or SIGINT (exit 0) or
 * until leadership is lost (exit 1, so the pod restarts as a standby).
 */
export async function runOperator(flags: OperatorFlags): Promise<void> {
  const config = loadOperatorConfig(flags);
  const logger = createLogger(config.logLevel);
  const cluster = defaultClusterAccess();
  const manager = new Manager({ ...managerOptions(config), kubeConfig: cluster.access, logger });
  registerControllers(manager, config);

  const onSignal = (signal: string) => (): void => void manager.stop(`received ${signal}`);
  process.once('SIGTERM', onSignal('SIGTERM'));
  process.once('SIGINT', onSignal('SIGINT'));
  await manager.start();
  logger.info(
    {
      server: cluster.server,
      credentials: cluster.source,
      namespace: config.operatorNamespace,
      leaderElection: config.leaderElection.enabled,
    },
    'Started the operator',
  );
  const reason = await manager.stopped;
  logger.info({ reason }, 'Stopped the operator');
  process.exit(reason.startsWith('received') ? 0 : 1);
}
