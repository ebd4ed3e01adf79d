import type { Registry } from 'prom-client';
import { Counter, Histogram } from 'prom-client';
import { findCondition } from '../../../api/conditions.js';
import { claimOf } from '../../binding/binding-model.js';
import type { Instance, InstanceApi } from './instance-api.js';
import { Reason } from './reasons.js';

const PROVISIONING_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600];
const TEARDOWN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
const RESUME_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800];

/** What the instance controller records, per manager registry. */
export interface InstanceMetrics {
  provisioning: Histogram<'topology'>;
  teardown: Histogram<'topology'>;
  resume: Histogram<'topology'>;
  release: Histogram<'namespace' | 'pool'>;
  failures: Counter<'topology' | 'reason'>;
  timeouts: Counter<'topology' | 'waiting'>;
}

const byRegistry = new WeakMap<Registry, InstanceMetrics>();

function create(registry: Registry): InstanceMetrics {
  const registers = [registry];
  return {
    provisioning: new Histogram({
      name: 'guestcluster_instance_provisioning_seconds',
      help: 'Time from ClusterInstance creation to Ready, by topology.',
      labelNames: ['topology'],
      buckets: PROVISIONING_BUCKETS,
      registers,
    }),
    teardown: new Histogram({
      name: 'guestcluster_instance_teardown_seconds',
      help: 'Time from ClusterInstance deletion to its backing resources gone, by topology.',
      labelNames: ['topology'],
      buckets: TEARDOWN_BUCKETS,
      registers,
    }),
    resume: new Histogram({
      name: 'guestcluster_instance_resume_seconds',
      help: 'Time from the start of a hibernated ClusterInstance resume to Ready again, by topology.',
      labelNames: ['topology'],
      buckets: RESUME_BUCKETS,
      registers,
    }),
    release: new Histogram({
      name: 'guestcluster_lease_release_seconds',
      help: "Time from a lease's release (the deletion of its instance) to the instance gone, by pool.",
      labelNames: ['namespace', 'pool'],
      buckets: TEARDOWN_BUCKETS,
      registers,
    }),
    failures: new Counter({
      name: 'guestcluster_instance_failures_total',
      help: 'ClusterInstances that became Failed, by topology and reason.',
      labelNames: ['topology', 'reason'],
      registers,
    }),
    timeouts: new Counter({
      name: 'guestcluster_instance_provisioning_timeouts_total',
      help: 'ClusterInstances that timed out provisioning, by topology and the reason they were waiting with.',
      labelNames: ['topology', 'waiting'],
      registers,
    }),
  };
}

/** The instance metrics of the manager's registry, created on first use. */
export function instanceMetrics(api: InstanceApi): InstanceMetrics {
  const registry = api.metricsRegistry;
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = create(registry);
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

const secondsSince = (api: InstanceApi, time: string | undefined): number | undefined => {
  const since = Date.parse(time ?? '');
  return Number.isNaN(since) ? undefined : Math.max(0, (api.now() - since) / 1000);
};

/**
 * Records a status write that made the instance Ready (its provisioning time) or Failed (a
 * failure, by the Ready condition's reason); `before` is the instance as the pass read it.
 */
export function observePhaseChange(api: InstanceApi, before: Instance, written: Instance): void {
  const [was, is] = [before.status?.phase, written.status?.phase];
  if (was === is) return;
  const topology = written.spec.type;
  if (is === 'Ready') {
    if (observedResume(api, before, written)) return;
    const seconds = secondsSince(api, written.metadata?.creationTimestamp);
    if (seconds !== undefined) instanceMetrics(api).provisioning.observe({ topology }, seconds);
  } else if (is === 'Failed') {
    const reason = findCondition(written.status?.conditions, 'Ready')?.reason ?? 'Unknown';
    instanceMetrics(api).failures.inc({ topology, reason });
    const timedOut = findCondition(written.status?.conditions, Reason.ProvisioningTimedOut);
    if (reason === Reason.ProvisioningTimedOut && timedOut)
      instanceMetrics(api).timeouts.inc({ topology, waiting: timedOut.reason });
  }
}

/**
 * A write that ended a resume (docs/reference/instances.md#hibernation) is no provisioning: its
 * own time is recorded. False when the write ended none.
 */
function observedResume(api: InstanceApi, before: Instance, written: Instance): boolean {
  const resumed = written.status?.hibernation;
  if (!resumed?.resumedAt || resumed.resumedAt === before.status?.hibernation?.resumedAt)
    return false;
  const ms = Date.parse(resumed.resumedAt) - Date.parse(resumed.resumeStartedAt ?? '');
  if (!Number.isNaN(ms))
    instanceMetrics(api).resume.observe({ topology: written.spec.type }, Math.max(0, ms / 1000));
  return true;
}

/**
 * Records an instance whose teardown has just finished; one a lease had claimed is also a
 * release of that lease, which deletes the instance as it asks for the release.
 */
export function observeTornDown(api: InstanceApi, instance: Instance): void {
  const seconds = secondsSince(api, instance.metadata?.deletionTimestamp);
  if (seconds === undefined) return;
  const metrics = instanceMetrics(api);
  metrics.teardown.observe({ topology: instance.spec.type }, seconds);
  const pool = instance.spec.poolRef?.name;
  if (claimOf(instance) && pool)
    metrics.release.observe({ namespace: instance.metadata.namespace, pool }, seconds);
}
