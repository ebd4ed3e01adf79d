/**
 * The waits of the lease, pool and instance controllers, and the CRCBundle build's step
 * deadlines, in milliseconds. The defaults are what
 * the operator always used; an admin (or a test that must not wait out minutes) sets others with
 * --timings or OPERATOR_TIMINGS, for example `lease.waitingResync=1m,instance.recheck=5s`.
 * Business time (the clock) measures all of them.
 */
export interface LeaseTimings {
  /** A slow safety pass for a waiting lease: every change that can free capacity is an event. */
  waitingResyncMs: number;
  /** How soon a lease whose namespace is terminating or missing looks again. */
  namespaceRecheckMs: number;
  /** How soon a lease that lost a claim race tries the next instance. */
  claimConflictRetryMs: number;
  /** How long a bound instance may be not Ready before its lease says so (phase NotReady). */
  notReadyGraceMs: number;
  /** The Warning Event comes this long before a TTL expires (or a tenth of the TTL, if shorter). */
  expiryWarningMs: number;
  /**
   * A lease binds only a guest whose readiness gates were checked at most this long ago
   * (docs/reference/instances.md#guest-health).
   */
  guestHealthMaxAgeMs: number;
}

export interface PoolTimings {
  /** How soon a pool whose namespace does not permit provisioning looks again. */
  disabledRecheckMs: number;
  /** How long a spare above the pool's floors stays Ready and unclaimed before it is deleted. */
  scaleDownIdleMs: number;
  /** The first wait before replacing another failed instance; it doubles up to the maximum. */
  replaceFailedBaseMs: number;
  replaceFailedMaxMs: number;
  /** How long a spare may fail its readiness gates (GuestHealthy=False) before it is replaced. */
  unhealthySpareGraceMs: number;
}

export interface InstanceTimings {
  /**
   * A wait nothing reports the end of (a crc guest API, a crc boot key): looked at again after this
   * long.
   */
  recheckMs: number;
  /**
   * The periodic health check of a Ready crc instance (docs/reference/instances.md#crc-readiness).
   */
  readyRecheckMs: number;
  /**
   * After the agent Job completes, its handoff may take this long to reach the cache
   * (docs/reference/naming.md#defaults-and-intervals).
   */
  handoffGraceMs: number;
  /** An hcp guest API that does not answer on its external endpoint yet. */
  endpointRecheckMs: number;
  /** Platform operands are not watched: while one is not ready, look again after this long. */
  platformRecheckMs: number;
  /**
   * A crc-agent Job whose pod has not started (Pending, blocked, not created) this long after the
   * Job was made fails the instance with AgentJobNotStarted
   * (docs/reference/instances.md#provisioning-deadline).
   */
  agentStartDeadlineMs: number;
  /**
   * A root disk whose import or clone has not progressed this long fails the instance with
   * DataVolumeStalled (docs/reference/instances.md#provisioning-deadline).
   */
  dataVolumeStallDeadlineMs: number;
  /**
   * How often the readiness gates of a Ready guest are checked (docs/reference/instances.md#guest-health),
   * each check a tenth later or sooner at random so that many guests do not go together.
   */
  guestHealthRecheckMs: number;
  /** A slow safety pass while teardown waits on objects that are not watched (launcher pods). */
  teardownResyncMs: number;
  /**
   * After this long the Terminating condition says CleanupTimedOut; the finalizer stays
   * (docs/reference/instances.md#deletion).
   */
  cleanupTimeoutMs: number;
}

/** The deadline of a CRCBundle build's step Job (its activeDeadlineSeconds, whole seconds). */
export interface BuildTimings {
  /** Every step but the install wait. */
  stepDeadlineMs: number;
  /** The install wait alone may take 90 minutes (docs/bundle-build.md#5-the-cluster-is-up-at-the-skewed-time-end-of-p5). */
  installDeadlineMs: number;
}

export interface Timings {
  lease: LeaseTimings;
  pool: PoolTimings;
  instance: InstanceTimings;
  build: BuildTimings;
}

export const DEFAULT_TIMINGS: Timings = {
  lease: {
    waitingResyncMs: 5 * 60_000,
    namespaceRecheckMs: 10_000,
    claimConflictRetryMs: 50,
    notReadyGraceMs: 3 * 60_000,
    expiryWarningMs: 5 * 60_000,
    guestHealthMaxAgeMs: 3 * 60_000,
  },
  pool: {
    disabledRecheckMs: 20_000,
    scaleDownIdleMs: 2 * 60_000,
    replaceFailedBaseMs: 30_000,
    replaceFailedMaxMs: 15 * 60_000,
    unhealthySpareGraceMs: 5 * 60_000,
  },
  instance: {
    recheckMs: 20_000,
    readyRecheckMs: 60_000,
    handoffGraceMs: 30_000,
    endpointRecheckMs: 20_000,
    platformRecheckMs: 20_000,
    agentStartDeadlineMs: 10 * 60_000,
    dataVolumeStallDeadlineMs: 10 * 60_000,
    guestHealthRecheckMs: 60_000,
    teardownResyncMs: 60_000,
    cleanupTimeoutMs: 15 * 60_000,
  },
  build: {
    stepDeadlineMs: 45 * 60_000,
    installDeadlineMs: 2 * 3_600_000,
  },
};

export const TIMINGS_SETTING = '--timings (OPERATOR_TIMINGS)';

/** The setting's keys, as written: `lease.waitingResync` for `lease.waitingResyncMs`. */
const KEYS = Object.entries(DEFAULT_TIMINGS).flatMap(([group, values]) =>
  Object.keys(values as object).map((field) => `${group}.${field.replace(/Ms$/, '')}`),
);

/** At most a day: a longer wait is a typo, and a timer holds at most about 24.8 days anyway. */
const MAX_MS = 24 * 3_600_000;
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text);
  const unit = UNITS[match?.[2] ?? ''];
  return match && unit ? Number(match[1]) * unit : undefined;
}

/**
 * The timings from `key=duration` pairs (a flag wins over its variable), today's values for the
 * keys not given. Every problem names the setting, the key and the value.
 */
export function loadTimings(
  flags: { timings?: string },
  env: NodeJS.ProcessEnv,
  problems: string[],
): Timings {
  const text = flags.timings ?? env.OPERATOR_TIMINGS ?? '';
  const timings: Timings = structuredClone(DEFAULT_TIMINGS);
  const given = new Set<string>();
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [key = '', value = ''] = pair.split('=', 2).map((p) => p.trim());
    const ms = parseDuration(value);
    if (!KEYS.includes(key)) {
      problems.push(`${TIMINGS_SETTING}: unknown key "${key}" (known: ${KEYS.join(', ')})`);
    } else if (given.has(key)) {
      problems.push(`${TIMINGS_SETTING}: ${key} is given twice`);
    } else if (ms === undefined || ms <= 0 || ms > MAX_MS) {
      problems.push(
        `${TIMINGS_SETTING}: ${key} must be a duration from 1ms to 24h such as 500ms, 20s, 5m or 1h (got "${value}")`,
      );
    } else {
      const [group, field] = key.split('.') as [keyof Timings, string];
      (timings[group] as unknown as Record<string, number>)[`${field}Ms`] = ms;
    }
    given.add(key);
  }
  const { replaceFailedBaseMs, replaceFailedMaxMs } = timings.pool;
  if (replaceFailedMaxMs < replaceFailedBaseMs)
    problems.push(
      `${TIMINGS_SETTING}: pool.replaceFailedMax (${replaceFailedMaxMs} ms) must not be below pool.replaceFailedBase (${replaceFailedBaseMs} ms)`,
    );
  return timings;
}
