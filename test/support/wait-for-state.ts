import type { ClusterAccess } from '../../client/kube/api-client.js';
import { pino } from 'pino';
import { ApiClient } from '../../client/kube/api-client.js';
import type { KubeObject } from '../../operator/kube/objects.js';
import type { ResourceType } from '../../client/kube/resource-type.js';
import { Informer } from '../../operator/runtime/informer.js';
import { RuntimeMetrics } from '../../operator/runtime/metrics.js';
import { WaitTimeoutError } from '../../dev/support/wait-for.js';

/** The current objects of each watched kind, by plural. */
export type State = Record<string, KubeObject[]>;

/**
 * Like waitForList, over several kinds of one namespace at once: keeps a list-then-watch cache of
 * each (the operator's own informer) and resolves with their contents once `check` finds nothing
 * wrong; `check` returns what is still wrong, which the timeout message shows.
 */
export async function waitForState(
  kubeConfig: ClusterAccess,
  options: {
    namespace: string;
    types: ResourceType[];
    check: (state: State) => string[];
    description: string;
    timeoutMs?: number;
  },
): Promise<State> {
  const client = new ApiClient(kubeConfig);
  const metrics = new RuntimeMetrics();
  const logger = pino({ level: 'silent' });
  const informers = options.types.map(
    (type) =>
      new Informer<KubeObject>({ type, namespace: options.namespace, client, logger, metrics }),
  );
  const state = (): State =>
    Object.fromEntries(options.types.map((type, i) => [type.plural, informers[i]!.list()]));
  let problems: string[] = ['not synced yet'];
  let synced = false;
  let settle: (state: State) => void = () => undefined;
  const done = new Promise<State>((resolve) => (settle = resolve));
  const evaluate = (): void => {
    if (!synced) return;
    const now = state();
    problems = options.check(now);
    if (problems.length === 0) settle(now);
  };
  for (const informer of informers) {
    informer.addHandlers({ onAdd: evaluate, onUpdate: evaluate, onDelete: evaluate });
    informer.start();
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new WaitTimeoutError(
            `Timed out after ${(options.timeoutMs ?? 60_000) / 1000}s waiting for ${options.description}; still: ${problems.slice(0, 10).join('; ')}`,
          ),
        ),
      options.timeoutMs ?? 60_000,
    );
  });
  try {
    await Promise.race([Promise.all(informers.map((i) => i.synced)), timedOut]);
    synced = true;
    evaluate();
    return await Promise.race([done, timedOut]);
  } finally {
    clearTimeout(timer);
    await Promise.all(informers.map((i) => i.stop()));
    await client.close();
  }
}
