import { findCondition, setCondition } from '../../api/conditions.js';
import type { ClusterInstance, ClusterLease, ClusterPool } from '../../../client/api/resources.js';
import { INSTANCES, LEASES, POOLS } from '../../../client/api/resources.js';
import { isConflict, isNotFound } from '../../../client/kube/api-error.js';
import { metaTime } from '../../../client/kube/meta-time.js';
import type { GuestAccess } from '../../kube/strict-kubeconfig.js';
import { readStrictKubeconfig } from '../../kube/strict-kubeconfig.js';
import type { Stored } from '../../kube/objects.js';
import { splitKey } from '../../kube/objects.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { ControllerRegistration } from '../../runtime/manager.js';
import type { ControllerPorts } from '../../runtime/ports.js';
import { formatGoDuration } from '../../../client/api/duration.js';
import { claimOf } from '../binding/binding-model.js';
import { CERTIFICATE_MARGIN_MS, expectedHoldMs } from '../binding/hand-out-gate.js';
import { publishedKubeconfig } from '../clusterlease/lease-kubeconfig-source.js';
import type { ConnectAddress } from '../clusterinstance/core/guest-api-probe.js';
import type { GuestCheck, GuestHealthReport } from './guest-checks.js';
import { checkGuest } from './guest-checks.js';
import { OffPathChecks } from '../../runtime/off-path-checks.js';
import { accessFingerprint } from '../clusterinstance/core/guest-api-checks.js';

/** Guest checks under way at once; more wait for a later pass. */
export const GUEST_HEALTH_CHECK_LIMIT = 32;
/** A check's end at the latest: two rounds of requests of 10 s connect, headers and body each. */
export const GUEST_HEALTH_CHECK_DEADLINE_MS = 60_000;
/** When a pass that found every place taken tries again. */
const FULL_RETRY_MS = 1000;

type Instance = Stored<ClusterInstance>;

export const GuestHealthReason = {
  GuestHealthy: 'GuestHealthy',
  GuestUnhealthy: 'GuestUnhealthy',
} as const;

export interface GuestHealthOptions {
  /** How often a Ready guest is checked (instance.guestHealthRecheck). */
  recheckMs: number;
  /** Where to connect for a guest API host (tests: the simulated router); DNS by default. */
  connectAddress?: ConnectAddress;
  /** The checks; the guest's own API by default (unit tests pass their own). */
  check?: typeof checkGuest;
  /** Random in [0, 1), for the spread of the checks. */
  random?: () => number;
  /** Queues an instance's pass: its check has ended (register-controllers.ts). */
  requeue?: (key: string) => void;
}

const GATES = 'readyz, ClusterOperators, nodes, kubelet CSRs, certificates';

/**
 * The guest health controller (docs/reference/instances.md#guest-health): checks the readiness
 * gates of every Ready guest, spare or leased, every instance.guestHealthRecheck (a tenth either
 * way at random), and records the result in status.guestHealth and the GuestHealthy condition,
 * with an Event when it turns. The checks run off the workers (off-path-checks.ts), at most
 * GUEST_HEALTH_CHECK_LIMIT at once and each until its deadline, so that a guest that does not
 * answer holds up no pass, of this controller or another; a check's end queues its instance.
 * The lease controller hands out only guests whose check passed recently (hand-out-gate.ts); the
 * pool replaces spares that keep failing (pool-unhealthy.ts).
 */
export class GuestHealthController {
  private readonly checks: OffPathChecks<GuestHealthReport>;

  constructor(
    private readonly ports: ControllerPorts,
    private readonly options: GuestHealthOptions,
  ) {
    this.checks = new OffPathChecks({
      what: 'the guest health check',
      limit: GUEST_HEALTH_CHECK_LIMIT,
      deadlineMs: GUEST_HEALTH_CHECK_DEADLINE_MS,
      onDone: (key) => options.requeue?.(key),
    });
  }

  registration(): ControllerRegistration {
    return {
      name: 'guesthealth',
      forType: INSTANCES,
      reconcile: (key, context) => this.reconcile(key, context),
    };
  }

  async reconcile(key: string, context: ReconcileContext): Promise<ReconcileResult> {
    const { namespace, name } = splitKey(key);
    const instance = (await this.ports.cache.read<ClusterInstance>(INSTANCES)).get(name, namespace);
    if (!instance || instance.metadata.deletionTimestamp || instance.status?.phase !== 'Ready')
      return {};
    const now = this.ports.clock.now();
    const checkedAt = Date.parse(instance.status.guestHealth?.checkedAt ?? '');
    const due = checkedAt + this.options.recheckMs;
    if (!Number.isNaN(checkedAt) && now < due && this.stillSaysReady(instance))
      return { requeueAt: due };
    const pool = await this.poolOf(instance);
    const outcome = await this.check(key, instance, pool);
    // The check's end queues the next pass; the deadline's pass is a backstop.
    if (outcome === 'pending') return { requeueAfterMs: GUEST_HEALTH_CHECK_DEADLINE_MS };
    if (outcome === 'full') return { requeueAfterMs: FULL_RETRY_MS };
    const written = await this.record(instance, outcome, context);
    if (!written) return { requeueAfterMs: 1000 };
    return { requeueAfterMs: this.spread(this.options.recheckMs) };
  }

  /** A check recorded since the instance last became Ready (else it is checked at once). */
  private stillSaysReady(instance: Instance): boolean {
    const ready = findCondition(instance.status?.conditions, 'Ready');
    const checkedAt = instance.status?.guestHealth?.checkedAt ?? '';
    return !!ready?.lastTransitionTime && ready.lastTransitionTime <= checkedAt;
  }

  private spread(ms: number): number {
    const random = this.options.random ?? Math.random;
    return Math.round(ms * (0.9 + 0.2 * random()));
  }

  private async poolOf(instance: Instance): Promise<ClusterPool | undefined> {
    const name = instance.spec.poolRef?.name;
    if (!name) return undefined;
    return (await this.ports.cache.read<ClusterPool>(POOLS)).get(name, instance.metadata.namespace);
  }

  /**
   * The gates, asked off the worker with the kubeconfig the operator published, once their check
   * has ended ('pending' until then, 'full' while every place is taken); the certificates are
   * judged here.
   */
  private async check(
    key: string,
    instance: Instance,
    pool: ClusterPool | undefined,
  ): Promise<GuestHealthReport | 'pending' | 'full'> {
    let access: GuestAccess;
    try {
      access = await this.publishedAccess(instance);
    } catch (error) {
      return { checks: [{ name: 'kubeconfig', problem: (error as Error).message }] };
    }
    const ignoreOperators = pool?.spec.guestHealth?.ignoreOperators ?? [];
    const fingerprint = `${accessFingerprint(instance, access)}/${ignoreOperators.join(',')}`;
    const taken = this.checks.take(key, fingerprint, () =>
      (this.options.check ?? checkGuest)(access, {
        ignoreOperators,
        connectAddress: this.options.connectAddress,
      }),
    );
    if ('pending' in taken) return taken.pending === 'full' ? 'full' : 'pending';
    const report = taken.outcome.ok
      ? taken.outcome.value
      : {
          checks: [
            {
              name: 'readyz',
              problem: `the guest API does not answer: ${taken.outcome.error.message}`,
            },
          ],
        };
    const leaseEnd = await this.claimingLeaseEnd(instance);
    return {
      ...report,
      checks: [...report.checks, this.certificateCheck(report, pool, leaseEnd)],
    };
  }

  /**
   * A spare's certificates must outlive a whole lease of its pool; a leased guest's only the
   * lease it is in, which the hand-out gate checked when it bound.
   */
  private certificateCheck(
    report: GuestHealthReport,
    pool: ClusterPool | undefined,
    leaseEnd: number | undefined,
  ): GuestCheck {
    const notAfter = report.certificatesNotAfter;
    const holdMs = expectedHoldMs(undefined, pool);
    const until = leaseEnd ?? this.ports.clock.now() + holdMs;
    if (notAfter === undefined || notAfter >= until + CERTIFICATE_MARGIN_MS)
      return { name: 'certificates' };
    const what =
      leaseEnd === undefined
        ? `${formatGoDuration(holdMs)} of lease`
        : `its lease ends at ${metaTime(leaseEnd)}`;
    return {
      name: 'certificates',
      problem: `a certificate of the published kubeconfig expires at ${metaTime(notAfter)}, before ${what} and a ${formatGoDuration(CERTIFICATE_MARGIN_MS)} margin`,
    };
  }

  /** When the lease that holds the instance ends (its status.expiresAt), if one does. */
  private async claimingLeaseEnd(instance: Instance): Promise<number | undefined> {
    const claim = claimOf(instance);
    if (!claim) return undefined;
    const leases = await this.ports.cache.read<ClusterLease>(LEASES);
    const lease = leases.get(claim.name, instance.metadata.namespace);
    if (!lease || lease.metadata.uid !== claim.uid) return undefined;
    const expiresAt = Date.parse(lease.status?.expiresAt ?? '');
    return Number.isNaN(expiresAt) ? undefined : expiresAt;
  }

  /**
   * The published kubeconfig (lease-kubeconfig-source.ts verifies it is the operator's), read
   * strictly against the recorded endpoint: a tenant may write Secrets in the namespace, and
   * nothing else is ever followed.
   */
  private async publishedAccess(instance: Instance): Promise<GuestAccess> {
    const endpoint = instance.status?.apiEndpoint;
    if (!endpoint) throw new Error('the instance records no API endpoint');
    const kubeconfig = await publishedKubeconfig(this.ports, instance);
    return readStrictKubeconfig(kubeconfig, { servers: [endpoint] });
  }

  /**
   * status.guestHealth and GuestHealthy, written against the version read (a conflict: checked
   * again shortly); an Event when the condition turns. False when the write lost a race.
   */
  private async record(
    instance: Instance,
    { checks, certificatesNotAfter: notAfter }: GuestHealthReport,
    context: ReconcileContext,
  ): Promise<boolean> {
    const now = this.ports.clock.now();
    const failing = checks.find((c) => c.problem);
    const update = failing
      ? {
          type: 'GuestHealthy',
          status: 'False' as const,
          reason: GuestHealthReason.GuestUnhealthy,
          message: `${failing.name}: ${failing.problem}`,
        }
      : {
          type: 'GuestHealthy',
          status: 'True' as const,
          reason: GuestHealthReason.GuestHealthy,
          message: `every readiness gate passes (${GATES})`,
        };
    const before = findCondition(instance.status?.conditions, 'GuestHealthy');
    const status = {
      ...instance.status,
      guestHealth: {
        checkedAt: metaTime(now),
        ...(notAfter !== undefined ? { certificatesNotAfter: metaTime(notAfter) } : {}),
      },
      conditions: setCondition(
        instance.status?.conditions,
        { ...update, observedGeneration: instance.metadata.generation },
        now,
      ),
    };
    try {
      await this.ports.client.updateStatus(INSTANCES, { ...instance, status });
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return false;
      throw error;
    }
    if (before?.status !== update.status && (before || update.status === 'False')) {
      const type = update.status === 'True' ? 'Normal' : 'Warning';
      void this.ports.events.record(instance, type, update.reason, update.message);
      context.logger.info(
        { healthy: update.status, reason: update.message },
        'Guest health changed',
      );
    }
    return true;
  }
}
