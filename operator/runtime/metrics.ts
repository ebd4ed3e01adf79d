import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The results a reconcile is counted under (controller.ts). */
const RECONCILE_RESULTS = ['success', 'requeue', 'conflict', 'error'] as const;

const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * The runtime's Prometheus metrics, in a registry of their own (not prom-client's global one), so
 * that two managers in one process keep separate figures.
 */
export class RuntimeMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: 'guestcluster_reconcile_total',
    help: 'Reconciles by controller and result (success, requeue, conflict, error).',
    labelNames: ['controller', 'result'],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: 'guestcluster_reconcile_errors_total',
    help: 'Reconciles that failed other than by a write conflict, by controller.',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'guestcluster_reconcile_duration_seconds',
    help: 'Time spent in reconcile, by controller.',
    labelNames: ['controller'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'guestcluster_workqueue_depth',
    help: 'Keys waiting in the work queue, by controller.',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly queueLatency = new Histogram({
    name: 'guestcluster_workqueue_queue_duration_seconds',
    help: 'Time a key waits in the work queue before a worker takes it, by controller.',
    labelNames: ['controller'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly queueAdds = new Counter({
    name: 'guestcluster_workqueue_adds_total',
    help: 'Keys added to the work queue, by controller.',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly queueRetries = new Counter({
    name: 'guestcluster_workqueue_retries_total',
    help: 'Keys requeued with backoff after an error, by controller.',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: 'guestcluster_watch_restarts_total',
    help: 'Watch streams restarted, by resource and reason (expired, gone, error, watchdog).',
    labelNames: ['resource', 'reason'],
    registers: [this.registry],
  });
  readonly maxConcurrentReconciles = new Gauge({
    name: 'guestcluster_controller_max_concurrent_reconciles',
    help: 'Workers of a controller: the reconciles it runs at once at most (--workers).',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly activeWorkers = new Gauge({
    name: 'guestcluster_controller_active_workers',
    help: 'Workers of a controller busy with a reconcile now.',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'guestcluster_leader',
    help: '1 while this process holds the leader-election lease.',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'guestcluster_' });
  }

  /**
   * Gives a controller's reconcile and work-queue series their zero values, so that they are
   * scraped from the start rather than from its first reconcile (a rate over a series that
   * appears with its first sample misses that sample).
   */
  initController(controller: string, workers: number): void {
    this.maxConcurrentReconciles.set({ controller }, workers);
    this.activeWorkers.set({ controller }, 0);
    for (const result of RECONCILE_RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
    this.reconcileDuration.zero({ controller });
    this.queueDepth.set({ controller }, 0);
    this.queueLatency.zero({ controller });
    this.queueAdds.inc({ controller }, 0);
    this.queueRetries.inc({ controller }, 0);
  }
}
