import { setTimeout as delay } from 'node:timers/promises';
import { LEASES, POOLS } from '../../client/api/resources.js';
import type { ClusterLease, ClusterPool } from '../../client/api/resources.js';
import { isNotFound } from '../../client/kube/api-error.js';
import { FaultInjector, noFaults } from './faults/fault-injector.js';
import { InvariantChecker } from './invariant-checker.js';
import { keepLogs, keepSamples } from './keep-logs.js';
import { leftovers, objectsOf } from './leftover-check.js';
import { LoadGenerator } from './load-generator.js';
import { ResourceSampler } from './resource-sampler.js';
import { grows, resourceTrends } from './resource-trend.js';
import { SoakEnvironment } from './soak-environment.js';
import { SoakObserver } from './soak-observer.js';
import type { SoakResult } from './soak-report.js';
import { reportTable, summarize } from './soak-report.js';
import { soakSchedule } from './soak-schedule.js';
import type { SoakSchedule } from './soak-schedule.js';
import type { SoakSettings } from './soak-settings.js';
import { soakSettings } from './soak-settings.js';
import { createPools, SOAK } from './soak-seed.js';

/** What the pools' instances and every object made for them have to be gone in, at the end. */
const CLEANUP_DEADLINE_MS = 5 * 60_000;

const began = Date.now();
function log(line: string): void {
  process.stderr.write(`[soak ${((Date.now() - began) / 1000).toFixed(1).padStart(7)}s] ${line}\n`);
}

/** Resolves on the first SIGINT or SIGTERM; a second one ends the process at once. */
function interruption(): { signal: AbortSignal } {
  const controller = new AbortController();
  const stop = (signal: string): void => {
    if (controller.signal.aborted) process.exit(130);
    log(`Received ${signal}: stopping; the environment is torn down before the report`);
    controller.abort();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return { signal: controller.signal };
}

const until = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
  );

/** Deletes what is left of a kind in the soak's namespace (UIDs named); returns the names. */
async function deleteAll(
  environment: SoakEnvironment,
  kind: typeof LEASES | typeof POOLS,
): Promise<string[]> {
  const { items } = await environment.api.list<ClusterLease | ClusterPool>(kind, {
    namespace: SOAK.namespace,
  });
  for (const item of items)
    await environment.api
      .delete(kind, item.metadata!.name!, SOAK.namespace, { uid: item.metadata!.uid! })
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  return items.map((item) => item.metadata!.name!);
}

async function soak(
  environment: SoakEnvironment,
  schedule: SoakSchedule,
  settings: SoakSettings,
  interrupted: AbortSignal,
): Promise<SoakResult> {
  const checker = new InvariantChecker();
  const observer = new SoakObserver(environment.admin, SOAK.namespace, checker);
  await observer.start();
  const baseline = await objectsOf(environment.api, SOAK.namespace);
  await createPools(environment.api);
  const startedAt = Date.now();
  const sampler = new ResourceSampler(() => environment.operator.pid, startedAt);
  sampler.start();
  const generator = new LoadGenerator(
    { api: environment.api, observer, github: environment.github, checker, log },
    startedAt,
  );
  const injector = new FaultInjector({ environment, observer, log }, startedAt);
  const served = generator.run(schedule.leases);
  const injected = injector.run(schedule.faults);
  log(
    `Soaking for ${settings.minutes} min: ${schedule.leases.length} leases, ${schedule.faults.length} faults planned`,
  );
  await Promise.race([delay(schedule.durationMs), until(interrupted)]);
  const drainStart = Date.now();
  log('Time is up: no more faults; leases still waiting are given up, the others end as planned');
  generator.startDraining();
  injector.stop();
  await Promise.race([Promise.all([injected, served]), until(interrupted)]);
  if (!interrupted.aborted) await finalChecks(environment, checker, baseline);
  sampler.stop();
  await keepSamples(sampler.samples, process.env).catch((error: Error) =>
    log(`Could not keep the resource samples: ${error.message}`),
  );
  const trends = resourceTrends(sampler.samples);
  for (const trend of trends.filter(grows))
    checker.violate(
      'operator-resources-grow',
      String(trend.pid),
      Date.now(),
      `the operator (pid ${trend.pid}) grew ${trend.rssMiBPerMinute.toFixed(2)} MiB and ${trend.fdsPerMinute.toFixed(2)} descriptors a minute over the second half of its life`,
    );
  checker.finish(Date.now());
  await observer.stop();
  return {
    settings,
    startedAt,
    records: generator.records,
    faults: injector.counts,
    violations: checker.violations,
    trends,
    operatorStarts: environment.operatorPids.length,
    drainMs: Date.now() - drainStart,
    ...(interrupted.aborted ? { error: 'interrupted' } : {}),
  };
}

/** Every lease gone, then the pools deleted and nothing the operator made left behind. */
async function finalChecks(
  environment: SoakEnvironment,
  checker: InvariantChecker,
  baseline: Awaited<ReturnType<typeof objectsOf>>,
): Promise<void> {
  for (const name of await deleteAll(environment, LEASES))
    checker.violate(
      'lease-left-behind',
      name,
      Date.now(),
      `ClusterLease ${name} was still there once every lease had ended`,
    );
  const before = new Set(baseline.map((ref) => ref.uid));
  const made = (await objectsOf(environment.api, SOAK.namespace)).filter((r) => !before.has(r.uid));
  log(
    `Deleting the pools; then none of the ${made.length} objects made since they came may be left`,
  );
  const cleanupStart = Date.now();
  await deleteAll(environment, POOLS);
  const left = await leftovers(environment.api, SOAK.namespace, baseline, CLEANUP_DEADLINE_MS);
  log(
    `${left.length} objects left ${Math.round((Date.now() - cleanupStart) / 1000)}s after the pools' deletion`,
  );
  for (const ref of left)
    checker.violate(
      'object-left-behind',
      ref.uid,
      Date.now(),
      `${ref.what} was left behind ${CLEANUP_DEADLINE_MS / 60_000} min after the last lease and the pools were deleted`,
    );
}

async function main(): Promise<number> {
  const settings = soakSettings(process.env);
  const schedule = soakSchedule(settings);
  const { signal } = interruption();
  log(
    `Seed ${settings.seed}: replay this run with SOAK_SEED=${settings.seed} SOAK_MINUTES=${settings.minutes} npm run soak`,
  );
  let environment: SoakEnvironment | undefined;
  let result: SoakResult;
  try {
    environment = await SoakEnvironment.start(log);
    log(
      `The environment is up (state folder ${environment.stateDir}, operator log ${environment.operator.logPath})`,
    );
    if (signal.aborted) throw new Error('interrupted before the soak began');
    result = await soak(environment, schedule, settings, signal);
  } catch (error) {
    result = failedRun(settings, error);
  } finally {
    if (environment)
      await keepLogs(environment.stateDir, process.env).then(
        (dir) => dir && log(`Kept the components' logs in ${dir}`),
        (error: Error) => log(`Could not keep the logs: ${error.message}`),
      );
    log('Tearing the environment down');
    await environment?.stop().catch((error: Error) => log(`Teardown: ${error.message}`));
  }
  const summary = summarize(result);
  process.stderr.write(`\n${reportTable(summary)}\n`);
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  return summary.violations.length > 0 || summary.error ? 1 : 0;
}

function failedRun(settings: SoakSettings, error: unknown): SoakResult {
  const message = error instanceof Error ? error.message : String(error);
  log(`The soak could not run: ${message}`);
  return {
    settings,
    startedAt: Date.now(),
    records: [],
    faults: noFaults(),
    violations: [],
    trends: [],
    operatorStarts: 0,
    drainMs: 0,
    error: message,
  };
}

// Signal listeners and open handles of a torn-down environment would keep the process alive.
main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
